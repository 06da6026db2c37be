//! Coverage guidance of a campaign: a corpus of the scenarios that reached something new, and
//! the draw, for each seed, of a fresh scenario or a mutation of one of them (see
//! [`crate::algorithms::coverage`]).
//!
//! A guided campaign stays deterministic whatever the number of jobs and however the workers
//! are scheduled: seeds are taken in batches of [`BATCH`], and a seed of batch `k` draws from
//! the corpus as it stood after every seed of batches `< k - 1` (one batch of lag, so workers
//! rarely wait). Results are merged into the corpus in seed order.

use crate::algorithms::coverage::{self, Goal};
use crate::algorithms::Algorithm;
use sincro_harness::gen::{Draft, GenOptions};
use sincro_harness::{SimRng, Trace};
use std::collections::BTreeMap;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

/// Seeds per batch: a seed of batch `k` draws from the corpus of batches `< k - 1`.
pub const BATCH: u64 = 16;

/// Most scenarios a corpus keeps (later ones that reach something new only add their
/// features).
pub const CORPUS_MAX: usize = 256;

/// Share of a guided campaign's seeds (once the corpus has entries) that mutate a corpus
/// scenario rather than generate a fresh one. Half until stop 38; a mutation finds the
/// deepest planted bugs a third to a quarter as often as a fresh seed, and a quarter raised
/// every deep bug's failing seeds (README, "Which strategy finds which deep bug").
pub const MUTATE_SHARE: f64 = 0.25;

/// A goal and how often a campaign reached it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoalReport {
    /// The goal's name.
    pub name: String,
    /// What it means.
    pub description: String,
    /// Runs that reached it.
    pub runs: u64,
    /// The smallest seed whose run reached it.
    pub first_seed: Option<u64>,
}

/// What guidance did in a campaign of one target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoverageReport {
    /// Distinct features reached.
    pub features: usize,
    /// Scenarios in the corpus.
    pub corpus: usize,
    /// Runs that mutated a corpus scenario (the others were generated fresh).
    pub mutated: u64,
    /// Runs observed.
    pub runs: u64,
    /// The algorithm's goals, in its order.
    pub goals: Vec<GoalReport>,
}

/// What a run reached, handed to [`Guide::record`].
#[derive(Clone, Debug)]
pub struct Observed {
    /// The run's seed.
    pub seed: u64,
    /// Its scenario's skeleton (a corpus entry if it reached something new).
    pub draft: Draft,
    /// Its features ([`coverage::features`]).
    pub features: Vec<u64>,
    /// For each goal, whether it was reached.
    pub goals: Vec<bool>,
    /// Whether the scenario was a mutation.
    pub mutated: bool,
}

struct Entry {
    /// Campaign index of the seed that added it.
    j: u64,
    seed: u64,
    draft: Draft,
    /// The features its run reached first.
    found: Vec<u64>,
}

#[derive(Default)]
struct State {
    /// Every result of an index below this one is merged.
    merged: u64,
    pending: BTreeMap<u64, Option<Observed>>,
    /// Each feature reached, with the number of runs that reached it.
    seen: BTreeMap<u64, u64>,
    /// At each batch boundary `b` (every result below `b` merged), the rarity of each
    /// corpus entry then: seeds whose corpus is that of boundary `b` draw with these, so the
    /// draw does not depend on how far other workers have got.
    rarity_at: BTreeMap<u64, Vec<u64>>,
    corpus: Vec<Entry>,
    goals: Vec<(u64, Option<u64>)>,
    mutated: u64,
    runs: u64,
    /// Entries of a [closed](Guide::close) corpus.
    kept: usize,
    /// Features reached (kept when the set is freed).
    features: usize,
}

/// The guidance state of one target's campaign.
pub struct Guide {
    goals: Vec<Goal>,
    state: Mutex<State>,
    merged: Condvar,
}

/// How a seed's scenario was drawn.
pub struct Drawn {
    /// Its skeleton.
    pub draft: Draft,
    /// Whether it mutates a corpus scenario.
    pub mutated: bool,
}

impl Guide {
    /// Guidance towards `goals` (the algorithm's [`Algorithm::goals`]).
    pub fn new(goals: Vec<Goal>) -> Guide {
        let state = State {
            goals: vec![(0, None); goals.len()],
            ..State::default()
        };
        Guide {
            goals,
            state: Mutex::new(state),
            merged: Condvar::new(),
        }
    }

    /// The skeleton of the scenario of campaign index `j` (seed `seed`): fresh from the
    /// generator, or a mutation of a corpus scenario. Waits until the corpus it draws from is
    /// complete; when `give_up` says so while waiting (a stop, a deadline), draws fresh.
    pub fn draw(
        &self,
        alg: &dyn Algorithm,
        variant: &str,
        j: u64,
        seed: u64,
        gen: &GenOptions,
        give_up: &dyn Fn() -> bool,
    ) -> Drawn {
        let fresh = || Drawn {
            draft: alg.draft(variant, seed, gen),
            mutated: false,
        };
        let bound = (j / BATCH).saturating_sub(1) * BATCH;
        let mut rng = SimRng::derive(seed, 0xC0DE);
        if bound == 0 || !rng.chance(MUTATE_SHARE) {
            return fresh();
        }
        let parent = {
            let mut st = self.state.lock().expect("no poisoning");
            while st.merged < bound {
                if give_up() {
                    return fresh();
                }
                st = self
                    .merged
                    .wait_timeout(st, Duration::from_millis(20))
                    .expect("no poisoning")
                    .0;
            }
            let rarity = &st.rarity_at[&bound];
            let count = rarity.len();
            assert_eq!(count, st.corpus.partition_point(|e| e.j < bound));
            if count == 0 {
                return fresh();
            }
            // The rarest of three entries drawn: the one whose rarest first-found feature the
            // fewest runs had reached at the boundary (AFL's favoured entries, in a
            // tournament).
            let i = (0..3)
                .map(|_| rng.index(count))
                .min_by_key(|&i| (rarity[i], i))
                .expect("three draws");
            let e = &st.corpus[i];
            (e.draft.clone(), e.seed)
        };
        let (mut draft, what) = coverage::mutate(alg, &parent.0, variant, seed, gen);
        let base = draft
            .scenario
            .description
            .split(" | mutated")
            .next()
            .unwrap_or_default()
            .to_string();
        draft.scenario.description = format!(
            "{base} | mutated at seed {seed} from the scenario of seed {}: {what}",
            parent.1
        );
        // Named after the campaign's seed, as its file is, not the parent's (stop 64: a file
        // `…seed107.json` named `…-seed0` whose `seed` was 108 showed three seeds).
        draft.scenario.name = format!(
            "{}-{}-seed{seed}",
            draft.scenario.algorithm, draft.scenario.variant
        );
        Drawn {
            draft,
            mutated: true,
        }
    }

    /// Whether a goal reads more of a trace than its event kinds and type words
    /// ([`Goal::reads_text`]): the guided runs then record full traces.
    pub fn reads_text(&self) -> bool {
        self.goals.iter().any(Goal::reads_text)
    }

    /// What a run reached: its features ([`coverage::features`]) and, for each goal,
    /// whether it was reached.
    pub fn measure(&self, trace: &Trace) -> (Vec<u64>, Vec<bool>) {
        let goals = self.goals.iter().map(|g| g.reached(trace)).collect();
        (coverage::features(trace), goals)
    }

    /// Records the result of campaign index `j` (`None` when it ran without a trace, or not
    /// at all) and merges, in index order, every result now contiguous.
    pub fn record(&self, j: u64, result: Option<Observed>) {
        let mut st = self.state.lock().expect("no poisoning");
        st.pending.insert(j, result);
        let mut advanced = false;
        loop {
            let next = st.merged;
            let Some(r) = st.pending.remove(&next) else {
                break;
            };
            if let Some(r) = r {
                merge(&mut st, next, r);
            }
            st.merged += 1;
            advanced = true;
            if st.merged % BATCH == 0 {
                let at = st.merged;
                let rarity = st.corpus.iter().map(|e| rarity(&st.seen, e)).collect();
                st.rarity_at.insert(at, rarity);
                // In-flight indices are all >= merged: none draws from an older boundary.
                let oldest = (at / BATCH).saturating_sub(1) * BATCH;
                st.rarity_at = st.rarity_at.split_off(&oldest);
            }
        }
        if advanced {
            self.merged.notify_all();
        }
    }

    /// Frees the corpus once the target's campaign is over (the report keeps its size).
    pub fn close(&self) {
        let mut st = self.state.lock().expect("no poisoning");
        st.kept += st.corpus.len();
        st.corpus = Vec::new();
        st.seen = BTreeMap::new();
        st.rarity_at = BTreeMap::new();
    }

    /// The report so far.
    pub fn report(&self) -> CoverageReport {
        let st = self.state.lock().expect("no poisoning");
        CoverageReport {
            features: st.features.max(st.seen.len()),
            corpus: st.kept + st.corpus.len(),
            mutated: st.mutated,
            runs: st.runs,
            goals: self
                .goals
                .iter()
                .zip(&st.goals)
                .map(|(g, &(runs, first_seed))| GoalReport {
                    name: g.name.clone(),
                    description: g.description.clone(),
                    runs,
                    first_seed,
                })
                .collect(),
        }
    }
}

/// How rare an entry is: the fewest runs that reached one of the features it found first.
fn rarity(seen: &BTreeMap<u64, u64>, e: &Entry) -> u64 {
    e.found
        .iter()
        .map(|f| seen.get(f).copied().unwrap_or(0))
        .min()
        .unwrap_or(u64::MAX)
}

/// Goal `i` is feature `GOAL_FEATURE + i` (features are hashes; a clash costs one corpus
/// entry at most).
const GOAL_FEATURE: u64 = 0x6F61_6C00_0000_0000;

fn merge(st: &mut State, j: u64, r: Observed) {
    st.runs += 1;
    st.mutated += u64::from(r.mutated);
    let mut found = Vec::new();
    let goals = r.goals.iter().enumerate().filter(|(_, &hit)| hit);
    let reached = r
        .features
        .iter()
        .copied()
        .chain(goals.map(|(i, _)| GOAL_FEATURE + i as u64));
    for f in reached {
        let runs = st.seen.entry(f).or_insert(0);
        *runs += 1;
        if *runs == 1 {
            found.push(f);
        }
    }
    st.features = st.seen.len();
    for (i, &hit) in r.goals.iter().enumerate() {
        if hit {
            let g = &mut st.goals[i];
            g.0 += 1;
            g.1 = Some(g.1.map_or(r.seed, |s| s.min(r.seed)));
        }
    }
    if !found.is_empty() && st.corpus.len() < CORPUS_MAX {
        st.corpus.push(Entry {
            j,
            seed: r.seed,
            draft: r.draft,
            found,
        });
    }
}
