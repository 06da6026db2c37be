//! Properties of an eventual leader service Ω in a dynamic shared-memory system (seed 004,
//! Khouri & Greve), judged over a shared-memory trace ([`ShmTrace`]).
//!
//! A run is finite, so "eventually" is judged on a suffix: from step `judge_from` to the end
//! (the registered algorithm uses the last quarter of the run, after every membership change
//! and the start of the timely regime). STABLE is the set of processes that joined and never
//! left nor crashed.
//!
//! First the *assumptions* of the model are checked ([`assumption`], property
//! `memory_access_pattern`): membership no longer changes in the suffix, `|STABLE| ≥ α`,
//! every stable process completes a round and queries `leader()` in the suffix, and
//! Property 1 holds there: some stable process is in every round's updated set of every
//! stable process. When they fail, the verdict says the assumption, not the algorithm,
//! failed. Then:
//! - `newcomer_never_demotes` (Lemma 4, safety): a join never changes the leader when the
//!   leader was a stable process;
//! - `crashed_never_elected` (Lemma 3): in the suffix, no stable process's `leader()` returns
//!   a process that left or crashed;
//! - `eventual_leadership` (the Ω property): in the suffix, every `leader()` of every stable
//!   process returns the same stable process; the stabilization step is reported.
//!
//! # Contract
//!
//! These are functions over a whole [`ShmTrace`], not [`sincro_harness::Checker`]s: they do
//! not implement [`crate::Property`] and [`crate::by_name`] does not build them (the Ω
//! algorithm calls [`judge`] itself).
//!
//! - **Reads:** shared-memory events with a process id (others are ignored): `join` (joins
//!   STABLE; its `leader_before` / `leader_after` for Lemma 4), `leave` and `crash` (leave
//!   STABLE for good, as departures), `leader` (each change of a process's `leader()` result,
//!   in effect until its next change), `round` (the `not_updated` set of each round of a
//!   stable process, in effect until its next record) and `summary` (each process's last round
//!   and last `leader()` steps). Not read: `timely`, `read`, `write`, `snapshot`. STABLE is
//!   judged with hindsight, from the whole run.
//! - **Settings:** `alpha` (the least |STABLE| the model assumes), `judge_from` (the first
//!   step of the judged suffix, chosen by the caller: the registered algorithm takes
//!   `params.judge_from_step`, or the last quarter of the run) and which of
//!   [`OMEGA_PROPERTIES`] to check (other names are ignored). No scenario, no quiet time, no
//!   bound: the assumption asks that membership no longer changes in the suffix.
//! - **When the run ends before it can judge:** never a pass. A suffix in which membership
//!   still changes, or a stable process without a round or a `leader()` call in the suffix
//!   (too few steps), is a run too short to judge: [`assumption`] reports it as a violation
//!   of `memory_access_pattern` whose explanation starts [`TOO_SHORT`], which
//!   [`too_short_to_judge`] recognizes and the registered algorithm reports as *could not
//!   judge*. |STABLE| < α, or Property 1 failing, is a run outside the model: a violation of
//!   `memory_access_pattern` whose explanation starts "assumption not met, so the algorithm
//!   is not judged". [`eventual_leadership`] with no `leader()` result in the suffix is a
//!   violation. A stable process whose `leader()` returns a departed process in the suffix
//!   but a live one by the end (`crashed_never_elected`), or stable processes that disagree
//!   in the suffix but all return one stable process by the end (`eventual_leadership`), say
//!   the suffix began before they settled (e.g. just after a departure): "eventually" cannot
//!   be refuted there, and the report, under the property's own name, starts [`TOO_SHORT`]
//!   too.
//! - **Class:** `newcomer_never_demotes` safety (judged over the whole run);
//!   `crashed_never_elected` and `eventual_leadership` liveness (judged on the suffix); the
//!   `memory_access_pattern` assumption is reported with class liveness.

use sincro_harness::shm::{Pid, ShmEventKind, ShmTrace};
use sincro_harness::{PropertyClass, Violation};
use std::collections::{BTreeMap, BTreeSet};

/// Property 1 of the model (and `|STABLE| ≥ α`, finite arrival): an assumption.
pub const MEMORY_ACCESS_PATTERN: &str = "memory_access_pattern";
/// How the explanation of a `memory_access_pattern` report starts when the judged suffix is
/// too short to tell whether the assumption holds (membership still changes in it, or a
/// stable process took no round or no `leader()` step in it): a longer run, or a later
/// `judge_from`, would judge it. No verdict, not a run outside the model.
pub const TOO_SHORT: &str = "too short to judge";

/// True when `v` reports a suffix too short to judge ([`TOO_SHORT`]): [`assumption`]'s
/// (membership still changes in it, too few steps), or a property's whose processes settled
/// only after the suffix began.
pub fn too_short_to_judge(v: &Violation) -> bool {
    v.explanation.starts_with(TOO_SHORT)
}

/// Lemma 4.
pub const NEWCOMER_NEVER_DEMOTES: &str = "newcomer_never_demotes";
/// Lemma 3.
pub const CRASHED_NEVER_ELECTED: &str = "crashed_never_elected";
/// The Ω property.
pub const EVENTUAL_LEADERSHIP: &str = "eventual_leadership";

/// The properties [`judge`] checks, assumption first.
pub const OMEGA_PROPERTIES: &[&str] = &[
    NEWCOMER_NEVER_DEMOTES,
    CRASHED_NEVER_ELECTED,
    EVENTUAL_LEADERSHIP,
];

/// What a passing run established.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OmegaReport {
    /// STABLE.
    pub stable: Vec<Pid>,
    /// A stable process in every updated set from `pam_from_step` on.
    pub pam_process: Pid,
    /// From when Property 1 holds (for that process), step.
    pub pam_from_step: u64,
    /// The eventual leader (when `eventual_leadership` was checked).
    pub leader: Option<Pid>,
    /// From this step on, every `leader()` of every stable process returned `leader`.
    pub stabilized_at_step: Option<u64>,
}

struct Facts {
    stable: BTreeSet<Pid>,
    /// Departed process -> index of its leave/crash event.
    departed: BTreeMap<Pid, usize>,
    /// Per process: (step, leader, event index) of each change of its `leader()` result.
    leaders: BTreeMap<Pid, Vec<(u64, Pid, usize)>>,
    /// Per process: last round step and last leader() step.
    last_round: BTreeMap<Pid, Option<u64>>,
    last_leader: BTreeMap<Pid, Option<u64>>,
    /// Last membership change: (step, event index).
    last_churn: Option<(u64, usize)>,
}

impl Facts {
    fn of(trace: &ShmTrace) -> Facts {
        let mut f = Facts {
            stable: BTreeSet::new(),
            departed: BTreeMap::new(),
            leaders: BTreeMap::new(),
            last_round: BTreeMap::new(),
            last_leader: BTreeMap::new(),
            last_churn: None,
        };
        for (i, e) in trace.events.iter().enumerate() {
            let Some(p) = e.pid else { continue };
            match &e.kind {
                ShmEventKind::Join { .. } => {
                    f.stable.insert(p);
                    f.last_churn = Some((e.step, i));
                }
                ShmEventKind::Leave { .. } | ShmEventKind::Crash { .. } => {
                    f.stable.remove(&p);
                    f.departed.insert(p, i);
                    f.last_churn = Some((e.step, i));
                }
                ShmEventKind::Leader { leader } => {
                    f.leaders.entry(p).or_default().push((e.step, *leader, i));
                }
                ShmEventKind::Summary {
                    last_round_step,
                    last_leader_step,
                    ..
                } => {
                    f.last_round.insert(p, *last_round_step);
                    f.last_leader.insert(p, *last_leader_step);
                }
                _ => {}
            }
        }
        f
    }

    /// The last `leader()` result of `p` in the run: (step, leader, event index).
    fn final_result(&self, p: Pid) -> Option<(u64, Pid, usize)> {
        self.leaders.get(&p).and_then(|r| r.last()).copied()
    }

    /// When every stable process's last `leader()` result is the same stable process: it and
    /// the step from which all of them return it.
    fn settled_on_stable(&self) -> Option<(Pid, u64)> {
        let mut settled: Option<(Pid, u64)> = None;
        for &p in &self.stable {
            let (s, l, _) = self.final_result(p)?;
            match settled {
                Some((x, _)) if x != l => return None,
                _ => settled = Some((l, settled.map_or(s, |(_, t)| t.max(s)))),
            }
        }
        settled.filter(|(l, _)| self.stable.contains(l))
    }

    /// The `leader()` results of `p` in effect at some point of the suffix: the one in
    /// effect at `from` (its last change at or before `from`: a change at `from` itself
    /// replaces the one before, which the suffix never returns) and every change after.
    fn results_in_suffix(&self, p: Pid, from: u64) -> Vec<(u64, Pid, usize)> {
        let Some(recs) = self.leaders.get(&p) else {
            return Vec::new();
        };
        let start = recs.partition_point(|r| r.0 <= from).saturating_sub(1);
        recs[start..].to_vec()
    }
}

fn violation(property: &str, step: u64, explanation: String, events: Vec<usize>) -> Violation {
    Violation {
        property: property.into(),
        class: if property == NEWCOMER_NEVER_DEMOTES {
            PropertyClass::Safety
        } else {
            PropertyClass::Liveness
        },
        explanation,
        t_ns: step * sincro_harness::shm::NS_PER_STEP,
        events: events.into_iter().map(|i| i as u64).collect(),
    }
}

/// Checks the model's assumptions over the suffix from `judge_from`; returns the process
/// Property 1 holds for and the step from which it does.
pub fn assumption(
    trace: &ShmTrace,
    alpha: usize,
    judge_from: u64,
) -> Result<(Pid, u64), Violation> {
    let f = Facts::of(trace);
    let fail = |step: u64, why: String, events: Vec<usize>| {
        Err(violation(
            MEMORY_ACCESS_PATTERN,
            step,
            format!("assumption not met, so the algorithm is not judged: {why}"),
            events,
        ))
    };
    let too_short = |step: u64, why: String, events: Vec<usize>| {
        Err(violation(
            MEMORY_ACCESS_PATTERN,
            step,
            format!("{TOO_SHORT}: {why}"),
            events,
        ))
    };
    if let Some((step, i)) = f.last_churn {
        if step >= judge_from {
            return too_short(
                step,
                format!("membership still changes at step {step}, inside the judged suffix (from step {judge_from}): arrivals have not stopped by the end of the run"),
                vec![i],
            );
        }
    }
    if f.stable.len() < alpha {
        return fail(
            trace.steps,
            format!(
                "only {} stable processes ({:?}) for α = {alpha}: |STABLE| ≥ α does not hold",
                f.stable.len(),
                f.stable
            ),
            Vec::new(),
        );
    }
    for &p in &f.stable {
        let round = f.last_round.get(&p).copied().flatten();
        let query = f.last_leader.get(&p).copied().flatten();
        if round.is_none_or(|s| s < judge_from) || query.is_none_or(|s| s < judge_from) {
            return too_short(
                trace.steps,
                format!("stable process p{p} completed no round or no leader() call in the judged suffix (from step {judge_from}): too few steps"),
                Vec::new(),
            );
        }
    }
    // Property 1 over the suffix: a stable process in every stable process's updated set.
    // Round records are changes: a record's set holds for the process's rounds until its next
    // record (or the end of the run).
    let mut candidates = f.stable.clone();
    let mut last_miss: BTreeMap<Pid, (u64, usize)> = BTreeMap::new();
    type Records<'t> = Vec<(u64, &'t Vec<Pid>, usize)>;
    let mut rounds: BTreeMap<Pid, Records<'_>> = BTreeMap::new();
    for (i, e) in trace.events.iter().enumerate() {
        if let (Some(j), ShmEventKind::Round { not_updated }) = (e.pid, &e.kind) {
            if f.stable.contains(&j) {
                rounds.entry(j).or_default().push((e.step, not_updated, i));
            }
        }
    }
    for recs in rounds.values() {
        for (k, &(_, set, i)) in recs.iter().enumerate() {
            let until = recs.get(k + 1).map_or(trace.steps, |r| r.0);
            for &x in set {
                let m = last_miss.entry(x).or_insert((until, i));
                if until >= m.0 {
                    *m = (until, i);
                }
                if until > judge_from {
                    candidates.remove(&x);
                }
            }
        }
    }
    let best = candidates
        .iter()
        .map(|&l| (last_miss.get(&l).map_or(0, |m| m.0), l))
        .min();
    match best {
        Some((from, l)) => Ok((l, from)),
        None => {
            let events: Vec<usize> = f
                .stable
                .iter()
                .filter_map(|p| last_miss.get(p).map(|m| m.1))
                .collect();
            fail(
                trace.steps,
                format!("Property 1 (memory access pattern) does not hold in the judged suffix (from step {judge_from}): every stable process was missed by some stable process's round there"),
                events,
            )
        }
    }
}

/// Lemma 4: a join never demotes a stable leader.
pub fn newcomer_never_demotes(trace: &ShmTrace) -> Result<(), Violation> {
    let f = Facts::of(trace);
    for (i, e) in trace.events.iter().enumerate() {
        if let (
            Some(r),
            ShmEventKind::Join {
                leader_before: Some(l),
                leader_after,
            },
        ) = (e.pid, &e.kind)
        {
            if f.stable.contains(l) && *leader_after != Some(*l) {
                let after = leader_after.map_or("nobody".into(), |a| format!("p{a}"));
                return Err(violation(
                    NEWCOMER_NEVER_DEMOTES,
                    e.step,
                    format!("the join of newcomer p{r} demoted the elected stable leader p{l}: leader() is now {after} (Lemma 4)"),
                    vec![i],
                ));
            }
        }
    }
    Ok(())
}

/// Lemma 3: in the suffix, no stable process's `leader()` returns a departed process.
pub fn crashed_never_elected(trace: &ShmTrace, judge_from: u64) -> Result<(), Violation> {
    let f = Facts::of(trace);
    let mut unsettled = None;
    for &p in &f.stable {
        for (step, l, i) in f.results_in_suffix(p, judge_from) {
            let Some(&gone) = f.departed.get(&l) else {
                continue;
            };
            let gone_step = trace.events[gone].step;
            if gone_step > step.max(judge_from) {
                continue;
            }
            // "Eventually": a process that stops returning departed processes before the end
            // of the run only did so after the judged suffix began. The suffix was chosen
            // too early (e.g. just after the departure), which no finite run can call a
            // violation.
            match f.final_result(p) {
                Some((s, x, j)) if !f.departed.contains_key(&x) => {
                    unsettled.get_or_insert_with(|| violation(
                        CRASHED_NEVER_ELECTED,
                        step.max(judge_from),
                        format!("{TOO_SHORT}: stable p{p}'s leader() returns p{l}, which left or crashed at step {gone_step}, in the judged suffix (from step {judge_from}), then p{x} from step {s}: a suffix judged from after step {s} would tell (Lemma 3 is eventual)"),
                        vec![gone, i, j],
                    ));
                }
                _ => {
                    return Err(violation(
                        CRASHED_NEVER_ELECTED,
                        step.max(judge_from),
                        format!("stable p{p}'s leader() still returns p{l}, which left or crashed at step {gone_step}, in the judged suffix (from step {judge_from}) (Lemma 3)"),
                        vec![gone, i],
                    ));
                }
            }
        }
    }
    unsettled.map_or(Ok(()), Err)
}

/// The Ω property: in the suffix every stable process's `leader()` returns the same stable
/// process. Returns it and the step from which every stable process's calls return it.
pub fn eventual_leadership(trace: &ShmTrace, judge_from: u64) -> Result<(Pid, u64), Violation> {
    let f = Facts::of(trace);
    let mut leader: Option<(Pid, usize)> = None;
    let mut stabilized = 0;
    for &p in &f.stable {
        for (step, l, i) in f.results_in_suffix(p, judge_from) {
            match leader {
                None => leader = Some((l, i)),
                Some((x, xi)) if x != l => {
                    return Err(match f.settled_on_stable() {
                        // Every stable process returns the same stable leader by the end:
                        // the suffix was chosen before they settled ("eventually").
                        Some((settled, s)) => violation(
                            EVENTUAL_LEADERSHIP,
                            step.max(judge_from),
                            format!("{TOO_SHORT}: leader() of stable processes returns both p{x} and p{l} in the judged suffix (from step {judge_from}), then p{settled} at every stable process from step {s}: a suffix judged from after step {s} would tell"),
                            vec![xi, i],
                        ),
                        None => violation(
                            EVENTUAL_LEADERSHIP,
                            step.max(judge_from),
                            format!("leader() of stable processes returns both p{x} and p{l} in the judged suffix (from step {judge_from}): no single eventual leader"),
                            vec![xi, i],
                        ),
                    });
                }
                _ => {}
            }
        }
        let recs = f.leaders.get(&p).map(Vec::as_slice).unwrap_or(&[]);
        if recs.len() > 1 {
            stabilized = stabilized.max(recs[recs.len() - 1].0);
        }
    }
    let Some((l, i)) = leader else {
        return Err(violation(
            EVENTUAL_LEADERSHIP,
            trace.steps,
            "no stable process called leader() in the judged suffix".into(),
            Vec::new(),
        ));
    };
    if !f.stable.contains(&l) {
        return Err(violation(
            EVENTUAL_LEADERSHIP,
            judge_from,
            format!("the leader every stable process agrees on, p{l}, is not stable"),
            vec![i],
        ));
    }
    Ok((l, stabilized))
}

/// Judges a run: the assumption first, then the `properties` asked for (names from
/// [`OMEGA_PROPERTIES`]) in the order Lemma 4, Lemma 3, eventual leadership.
pub fn judge(
    trace: &ShmTrace,
    alpha: usize,
    judge_from: u64,
    properties: &[&str],
) -> Result<OmegaReport, Violation> {
    let (pam_process, pam_from_step) = assumption(trace, alpha, judge_from)?;
    if properties.contains(&NEWCOMER_NEVER_DEMOTES) {
        newcomer_never_demotes(trace)?;
    }
    if properties.contains(&CRASHED_NEVER_ELECTED) {
        crashed_never_elected(trace, judge_from)?;
    }
    let (leader, stabilized_at_step) = if properties.contains(&EVENTUAL_LEADERSHIP) {
        let (l, s) = eventual_leadership(trace, judge_from)?;
        (Some(l), Some(s))
    } else {
        (None, None)
    };
    Ok(OmegaReport {
        stable: Facts::of(trace).stable.into_iter().collect(),
        pam_process,
        pam_from_step,
        leader,
        stabilized_at_step,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use sincro_harness::shm::ShmEvent;

    fn ev(step: u64, pid: Pid, kind: ShmEventKind) -> ShmEvent {
        ShmEvent {
            step,
            pid: Some(pid),
            kind,
        }
    }

    fn join(step: u64, pid: Pid, before: Option<Pid>, after: Option<Pid>) -> ShmEvent {
        ev(
            step,
            pid,
            ShmEventKind::Join {
                leader_before: before,
                leader_after: after,
            },
        )
    }

    fn summary(pid: Pid, end: u64) -> ShmEvent {
        ev(
            end,
            pid,
            ShmEventKind::Summary {
                steps: 10,
                rounds: 3,
                last_round_step: Some(end - 1),
                leader_calls: 3,
                last_leader_step: Some(end - 1),
            },
        )
    }

    /// Three processes, p0 crashes at 10; p1 and p2 elect p1 at 20 (p2 switched from p0).
    fn base(last_leader_of_p2: Pid) -> ShmTrace {
        let events = vec![
            join(0, 0, None, Some(0)),
            join(0, 1, Some(0), Some(0)),
            join(0, 2, Some(0), Some(0)),
            ev(5, 1, ShmEventKind::Leader { leader: 0 }),
            ev(6, 2, ShmEventKind::Leader { leader: 0 }),
            ev(10, 0, ShmEventKind::Crash { leader: Some(0) }),
            ev(
                15,
                2,
                ShmEventKind::Round {
                    not_updated: vec![0],
                },
            ),
            ev(20, 1, ShmEventKind::Leader { leader: 1 }),
            ev(
                21,
                2,
                ShmEventKind::Leader {
                    leader: last_leader_of_p2,
                },
            ),
            summary(0, 100),
            summary(1, 100),
            summary(2, 100),
        ];
        ShmTrace {
            processes: 3,
            steps: 100,
            events,
        }
    }

    #[test]
    fn a_run_that_stabilizes_passes_with_its_stabilization_step() {
        let r = judge(&base(1), 2, 75, OMEGA_PROPERTIES).unwrap();
        assert_eq!(r.stable, vec![1, 2]);
        assert_eq!(r.leader, Some(1));
        assert_eq!(r.stabilized_at_step, Some(21));
        assert_eq!((r.pam_process, r.pam_from_step), (1, 0));
    }

    #[test]
    fn lemma_3_catches_a_crashed_leader_still_elected() {
        let v = judge(&base(0), 2, 75, OMEGA_PROPERTIES).unwrap_err();
        assert_eq!(v.property, CRASHED_NEVER_ELECTED);
        assert!(v.explanation.contains("p0"), "{v}");
        assert_eq!(v.events, vec![5, 8]);
        // the Ω property alone also fails (two different leaders)
        let v = eventual_leadership(&base(0), 75).unwrap_err();
        assert_eq!(v.property, EVENTUAL_LEADERSHIP);
    }

    /// Judged from just after p0's crash, p1 and p2 still return p0 until steps 20 and 21,
    /// then settle on p1: "eventually" is not refuted there (it was a VIOLATION). A process
    /// that still returns p0 at the end is.
    #[test]
    fn a_suffix_judged_before_the_processes_settle_is_too_short_not_a_violation() {
        let v = judge(&base(1), 2, 11, OMEGA_PROPERTIES).unwrap_err();
        assert_eq!(v.property, CRASHED_NEVER_ELECTED);
        assert!(too_short_to_judge(&v), "{v}");
        assert!(v.explanation.contains("from step 20"), "{v}");
        let v = eventual_leadership(&base(1), 11).unwrap_err();
        assert_eq!(v.property, EVENTUAL_LEADERSHIP);
        assert!(too_short_to_judge(&v), "{v}");
        assert!(
            v.explanation
                .contains("p1 at every stable process from step 21"),
            "{v}"
        );
        // p2 still returns the crashed p0 at the end: a violation from any suffix
        for from in [11, 75] {
            let v = judge(&base(0), 2, from, OMEGA_PROPERTIES).unwrap_err();
            assert_eq!(v.property, CRASHED_NEVER_ELECTED);
            assert!(!too_short_to_judge(&v), "{v}");
            let v = eventual_leadership(&base(0), from).unwrap_err();
            assert!(!too_short_to_judge(&v), "{v}");
        }
        // judged after they settled, the same run passes
        judge(&base(1), 2, 22, OMEGA_PROPERTIES).unwrap();
    }

    /// The suffix starts at `judge_from` itself: a `leader()` result recorded at that step
    /// replaces the one before it, which no call of the suffix returns. p2 returns the
    /// crashed p0 until step 21, p1 from step 21: judged from 21 the run passes (it was
    /// "too short to judge", the stale p0 taken as returned in the suffix: the differential
    /// test against the oracle found it), judged from 20 it is not judged.
    #[test]
    fn a_result_changed_at_the_first_step_of_the_suffix_is_the_one_judged() {
        let t = base(1);
        let report = judge(&t, 2, 21, OMEGA_PROPERTIES).unwrap();
        assert_eq!(report.leader, Some(1));
        for property in [CRASHED_NEVER_ELECTED, EVENTUAL_LEADERSHIP] {
            let v = judge(&t, 2, 20, &[property]).unwrap_err();
            assert_eq!(v.property, property);
            assert!(too_short_to_judge(&v), "{}", v.explanation);
        }
    }

    #[test]
    fn lemma_4_catches_a_newcomer_that_demotes_a_stable_leader() {
        let mut t = base(1);
        t.events.insert(9, join(30, 3, Some(1), Some(3)));
        t.processes = 4;
        let v = newcomer_never_demotes(&t).unwrap_err();
        assert_eq!(v.property, NEWCOMER_NEVER_DEMOTES);
        assert_eq!(v.class, PropertyClass::Safety);
        assert_eq!(v.events, vec![9]);
        // a newcomer that leaves the leader alone is fine
        t.events[9] = join(30, 3, Some(1), Some(1));
        newcomer_never_demotes(&t).unwrap();
    }

    #[test]
    fn a_failed_assumption_is_reported_as_such_not_as_the_algorithm() {
        // p1 and p2 both missed in the suffix: Property 1 fails
        let mut t = base(0);
        for (step, x) in [(80, 1), (81, 2)] {
            t.events.insert(
                9,
                ev(
                    step,
                    if x == 1 { 2 } else { 1 },
                    ShmEventKind::Round {
                        not_updated: vec![x],
                    },
                ),
            );
        }
        t.events.sort_by_key(|e| e.step);
        let v = judge(&t, 2, 75, OMEGA_PROPERTIES).unwrap_err();
        assert_eq!(v.property, MEMORY_ACCESS_PATTERN);
        assert!(v.explanation.starts_with("assumption not met"), "{v}");
        // too few stable processes for α
        let v = judge(&base(1), 3, 75, OMEGA_PROPERTIES).unwrap_err();
        assert_eq!(v.property, MEMORY_ACCESS_PATTERN);
        assert!(v.explanation.contains("|STABLE|"), "{v}");
        assert!(!too_short_to_judge(&v), "{v}");
        // churn inside the suffix: too short to judge, not outside the model
        let v = judge(&base(1), 2, 8, OMEGA_PROPERTIES).unwrap_err();
        assert!(v.explanation.contains("arrivals have not stopped"), "{v}");
        assert!(too_short_to_judge(&v), "{v}");
        // a stable process with no round in the suffix: too few steps
        let v = judge(&base(1), 2, 100, OMEGA_PROPERTIES).unwrap_err();
        assert!(v.explanation.contains("too few steps"), "{v}");
        assert!(too_short_to_judge(&v), "{v}");
    }
}
