//! The registry: every algorithm runnable by name, with its variants, properties and fault
//! model.

use sincro_harness::engine::explore::{Bounds, Choice};
use sincro_harness::engine::{Outcome, RunOptions};
use sincro_harness::explore::{ExploreOptions, ExploreReport};
use sincro_harness::fault::{FaultClass, FaultModel};
use sincro_harness::gen::{self, Draft, GenOptions};
use sincro_harness::{Checker, Scenario, ScenarioError, SimRng, WorkloadItem};

/// A variant of an algorithm.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariantInfo {
    /// Name used in scenarios (`correct` for the textbook algorithm).
    pub name: &'static str,
    /// True for a deliberately broken variant (fuzzing must find its violation).
    pub buggy: bool,
    /// True for a deep planted bug (see [`Variant::deep`](crate::spec::Variant::deep)): a
    /// campaign must catch it only with [`DEEP_BUG_SEEDS`] seeds or more.
    pub deep: bool,
    /// What it does differently.
    pub summary: &'static str,
}

/// The seeds a campaign needs before it must catch a deep planted bug
/// ([`VariantInfo::deep`]); a shorter campaign that misses one says so, and is not failed.
pub const DEEP_BUG_SEEDS: u64 = 100_000;

/// What `sincro list` shows about an algorithm.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AlgorithmInfo {
    /// Registered name, `family.algorithm`.
    pub name: &'static str,
    /// One line.
    pub summary: &'static str,
    /// Where the seed texts describe it.
    pub source: &'static str,
    /// Variants, `correct` first.
    pub variants: Vec<VariantInfo>,
    /// Properties it promises (checker names).
    pub properties: Vec<&'static str>,
    /// Faults it tolerates.
    pub fault_model: FaultModel,
}

/// An algorithm the CLI and tests can run by name.
pub trait Algorithm: Sync {
    /// Name, variants, properties, fault model.
    fn info(&self) -> AlgorithmInfo;
    /// Runs a scenario naming this algorithm (checkers from its declared properties).
    ///
    /// The verdict judges what the checkers saw: a property whose run gave it nothing to
    /// judge (no request for a mutual exclusion, no election) passes, unless `options` asks
    /// for evidence ([`RunOptions::requiring_evidence`]), as `sincro run` does; then it is
    /// COULD NOT JUDGE (`sincro::testing::check` asks it of its seeds as a whole). To judge a
    /// file the way the command line does, pass `RunOptions::new(true).requiring_evidence()`.
    fn run(&self, scenario: &Scenario, options: RunOptions) -> Result<Outcome, ScenarioError>;
    /// As [`Algorithm::run`], with `extra` checkers judging the run beside those of the
    /// scenario's properties (a test's own, see `sincro::testing::Check::checker`). The
    /// scenario's `checks.properties` may name an extra checker's property, even alone: the
    /// run then judges it and, of the promised ones, only those named. The default refuses
    /// extra checkers; every [`Spec`](crate::spec::Spec) accepts them.
    fn run_with(
        &self,
        scenario: &Scenario,
        options: RunOptions,
        extra: Vec<Box<dyn Checker>>,
    ) -> Result<Outcome, ScenarioError> {
        if extra.is_empty() {
            self.run(scenario, options)
        } else {
            Err(ScenarioError(format!(
                "{} does not take extra checkers (describe it with a Spec)",
                self.info().name
            )))
        }
    }
    /// Whether this algorithm's runs can be made on `engine`; `Err` says why not. A campaign
    /// asks before any seed runs. Every [`Spec`](crate::spec::Spec) runs on every engine
    /// (the default); `omega.khouri-greve`, on its own shared-memory model, on none but the
    /// native default.
    fn runs_on(&self, engine: sincro_harness::EngineKind) -> Result<(), String> {
        let _ = engine;
        Ok(())
    }
    /// Whether the search strategies (`random`, `pct`, `pos`, `moments`) shape this
    /// algorithm's generated runs: true for every message-passing [`Spec`](crate::spec::Spec)
    /// (the default); false for `omega.khouri-greve`, whose shared-memory model has no message
    /// schedule and clears the fault plan, so that every strategy generates the same
    /// scenarios. `calibrate` and `table search` say so rather than print one measurement
    /// as several.
    fn strategies_apply(&self) -> bool {
        true
    }
    /// Explores `scenario` exhaustively within `options`' bounds: every order of its events
    /// (and the faults the bounds allow), judged by the same checkers as a run (see
    /// [`sincro_harness::explore`]). The default refuses; every [`Spec`](crate::spec::Spec)
    /// explores.
    fn explore(
        &self,
        scenario: &Scenario,
        options: &ExploreOptions,
    ) -> Result<ExploreReport, ScenarioError> {
        let _ = (scenario, options);
        Err(ScenarioError(format!(
            "{} cannot be explored (describe it with a Spec)",
            self.info().name
        )))
    }
    /// Replays a schedule found by [`Algorithm::explore`], recording the trace. The default
    /// refuses; every [`Spec`](crate::spec::Spec) replays.
    fn replay_schedule(
        &self,
        scenario: &Scenario,
        bounds: &Bounds,
        schedule: &[Choice],
    ) -> Result<Outcome, ScenarioError> {
        let _ = (scenario, bounds, schedule);
        Err(ScenarioError(format!(
            "{} cannot be explored (describe it with a Spec)",
            self.info().name
        )))
    }
    /// The checkers a run of `scenario` judges with, built the way [`Algorithm::run`] builds
    /// them (its `checks.properties`, this algorithm's own judgement of each: ranks, settle
    /// time, liveness bound), to judge a trace of that scenario offline (`sincro check
    /// --scenario`). The default refuses; every [`Spec`](crate::spec::Spec) builds them.
    fn checkers(&self, scenario: &Scenario) -> Result<Vec<Box<dyn Checker>>, ScenarioError> {
        let _ = scenario;
        Err(ScenarioError(format!(
            "{} judges its runs on its own state during the run, not from a trace: its \
             properties cannot be judged offline; run the scenario instead (an algorithm \
             described with a Spec can be judged from a trace)",
            self.info().name
        )))
    }
    /// [`Algorithm::checkers`], but the properties in `judged_elsewhere` are judged by
    /// checkers of the caller's own (a test's `.checker(..)`): `checks.properties` may name
    /// them though the algorithm does not promise them, and no checker is built for them
    /// here. Every [`Spec`](crate::spec::Spec) builds them so; the default ignores the list
    /// and answers [`Algorithm::checkers`].
    fn checkers_with(
        &self,
        scenario: &Scenario,
        judged_elsewhere: &[&str],
    ) -> Result<Vec<Box<dyn Checker>>, ScenarioError> {
        let _ = judged_elsewhere;
        self.checkers(scenario)
    }
    /// A workload for a generated scenario: inputs inside `[0, active_ms]` (a [`Spec`](crate::spec::Spec)'s,
    /// squeezed into one burst for half the seeds: see
    /// [`input_burst`](sincro_harness::gen::input_burst)).
    fn workload(&self, rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<WorkloadItem>;
    /// Default liveness bound (ms after the faults stop) for this scenario.
    fn liveness_bound_ms(&self, scenario: &Scenario) -> u64;

    /// The fewest nodes a generated scenario of this algorithm has (1 by default; e.g. 2 for
    /// a clock synchronization judged by the skew between clocks): [`Algorithm::draft`] draws
    /// the node count from `max(opts.nodes_min, this)` up, so a campaign asked for fewer
    /// runs scenarios it can judge instead of failing every seed or refusing one.
    fn nodes_min(&self) -> usize {
        1
    }

    /// Fault classes outside the model that a buggy `variant` needs before its bug can show
    /// (e.g. a token regenerated without a generation number only matters once a token is
    /// late, not lost). Generated scenarios of that variant draw them too; the correct variant
    /// is fuzzed inside its model only. Empty by default.
    ///
    /// Outside the model the correct variant may break as well, so a campaign (`fuzz`,
    /// `calibrate`, `table search`, the shrinker) counts a failure of such a variant as a
    /// catch only when the variant named `correct`, run on the same scenario, does not fail
    /// it the same way; the others are counted apart in the summary.
    fn bug_classes(&self, variant: &str) -> Vec<FaultClass> {
        let _ = variant;
        Vec::new()
    }

    /// A complete scenario from `seed`: swarm faults (inside the fault model unless
    /// `opts.beyond_model`), this algorithm's workload, and a duration long enough to judge
    /// liveness after the faults stop; then the schedule and the faults at protocol moments
    /// that `opts.strategy` draws for this seed (see [`crate::moments`]: a pilot run finds the
    /// moments).
    fn generate(&self, variant: &str, seed: u64, opts: &GenOptions) -> Scenario {
        let draft = self.draft(variant, seed, opts);
        let opts = opts.for_draft(&draft);
        self.complete(draft, &opts)
    }

    /// Parameters a generated scenario of `seed` sets (see [`crate::spec::Spec::draw_params`]);
    /// `None` keeps the algorithm's defaults.
    fn draw_params(&self, seed: u64, scenario: &Scenario) -> Option<serde_json::Value> {
        let _ = (seed, scenario);
        None
    }

    /// The skeleton [`Algorithm::generate`] completes: swarm faults, schedule and faults at
    /// protocol moments, no workload yet. A guided campaign keeps skeletons in its corpus and
    /// [mutates](crate::coverage::mutate) them.
    fn draft(&self, variant: &str, seed: u64, opts: &GenOptions) -> Draft {
        let model = crate::coverage::generation_model(self, variant);
        let raised;
        let opts = if opts.nodes_min < self.nodes_min() {
            raised = opts.with_nodes_at_least(self.nodes_min());
            &raised
        } else {
            opts
        };
        let mut draft = gen::generate(self.info().name, variant, seed, &model, opts);
        // Before the pilots of the moments, which run the scenario with them.
        if let Some(params) = self.draw_params(seed, &draft.scenario) {
            draft.scenario.description =
                format!("{}; params drawn: {params}", draft.scenario.description);
            draft.scenario.params = params;
        }
        if draft.moments > 0 {
            let rounds = draft.moments;
            crate::moments::add_moment_faults(self, &mut draft, &model, seed, rounds, opts);
        }
        draft
    }

    /// States a campaign should reach (`sometimes` goals, see [`crate::coverage`]): reported
    /// as reached or never reached by a guided campaign. By default, the goals of the
    /// properties the algorithm promises ([`crate::coverage::goals_for_properties`]).
    fn goals(&self) -> Vec<crate::coverage::Goal> {
        crate::coverage::goals_for_properties(&self.info().properties)
    }

    /// Completes a scenario skeleton (from [`gen::generate`], or from fuzzer bytes through
    /// `sincro_harness::arbitrary::FuzzInput::draft`): adds this algorithm's workload inside
    /// the active phase and sets a duration long enough to judge liveness after the faults stop.
    fn complete(&self, draft: Draft, opts: &GenOptions) -> Scenario {
        crate::spec::complete_default(self, draft, opts)
    }
}

/// Builds the checker of one property for a scenario, given the liveness bound in ms.
pub type CheckerFactory = dyn Fn(&Scenario, u64) -> Box<dyn Checker> + Send + Sync;

/// The algorithms and named checkers a program knows: the built-ins, plus a user's own.
///
/// Every command of the CLI and every free function of this crate ([`find`], [`select`],
/// [`run_scenario`]) reads the [installed](Registry::install) registry, or the built-in one
/// when none was installed. A user's binary installs its own with
/// `sincro::cli::main_with(Registry::builtin().with(MyAlgorithm))`.
#[derive(Clone)]
pub struct Registry {
    algorithms: Vec<&'static dyn Algorithm>,
    checkers: Vec<(&'static str, std::sync::Arc<CheckerFactory>)>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<_> = self.algorithms.iter().map(|a| a.info().name).collect();
        let checkers: Vec<_> = self.checkers.iter().map(|c| c.0).collect();
        f.debug_struct("Registry")
            .field("algorithms", &names)
            .field("checkers", &checkers)
            .finish()
    }
}

static INSTALLED: std::sync::OnceLock<Registry> = std::sync::OnceLock::new();

/// The known name within two edits of `name` (a typo: `mutex.ricart-agrawla`), the nearest
/// one first; else the shortest known name that `name` begins (a name cut short:
/// `mutex.ricart`, `no-tie`); `None` when none is that close.
pub fn closest<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    // Names are lower case: `MUTEX.CENTRALIZED` is a misspelling of one too.
    let name = name.to_ascii_lowercase();
    let typo = known
        .iter()
        .map(|k| (edit_distance(&name, k), *k))
        .filter(|&(d, _)| d <= 2)
        .min_by_key(|&(d, _)| d)
        .map(|(_, k)| k);
    // A prefix of three characters at least: `m` begins half the names and means none.
    let cut_short = || {
        known
            .iter()
            .filter(|k| name.len() >= 3 && k.starts_with(name.as_str()))
            .min_by_key(|k| k.len())
            .copied()
    };
    typo.or_else(cut_short)
}

/// "unknown variant `name` of `alg`" (`alg` empty: unnamed), with the nearest known variant
/// if one is close ([`closest`]) and the list of them: what every command says of a variant
/// its algorithm does not have.
pub fn unknown_variant(name: &str, alg: &str, known: &[&str]) -> String {
    let of = if alg.is_empty() {
        String::new()
    } else {
        format!(" of {alg}")
    };
    let hint = closest(name, known)
        .map(|near| format!("did you mean `{near}`? "))
        .unwrap_or_default();
    format!(
        "unknown variant `{}`{of}; {hint}known variants: {}",
        sincro_harness::scenario::shown_text(name),
        known.join(", ")
    )
}

/// Levenshtein distance over bytes (names are ASCII; a longer input is far from every name
/// anyway), one row at a time.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len().abs_diff(b.len()) > 2 {
        return a.len().abs_diff(b.len());
    }
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, &x) in a.iter().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, &y) in b.iter().enumerate() {
            let up = row[j + 1];
            row[j + 1] = (diag + usize::from(x != y)).min(up + 1).min(row[j] + 1);
            diag = up;
        }
    }
    row[b.len()]
}

impl Registry {
    /// No algorithm, no user checker (the built-in checkers are always known by name).
    pub fn empty() -> Self {
        Registry {
            algorithms: Vec::new(),
            checkers: Vec::new(),
        }
    }

    /// Sincro's own algorithms, in the order `sincro list` shows them.
    pub fn builtin() -> Self {
        let mut all: Vec<&'static dyn Algorithm> = Vec::new();
        all.extend(crate::mutex::ALGORITHMS);
        all.extend(crate::ordering::ALGORITHMS);
        all.extend(crate::deadlock::ALGORITHMS);
        all.extend(crate::clocks::ALGORITHMS);
        all.extend(crate::election::ALGORITHMS);
        all.extend(crate::omega::ALGORITHMS);
        Registry {
            algorithms: all,
            checkers: Vec::new(),
        }
    }

    /// Adds an algorithm (any [`Spec`](crate::spec::Spec) is one), after those already there.
    ///
    /// # Panics
    /// If an algorithm of the same name is already registered (a programming error: two
    /// algorithms could not be told apart in a scenario file), or the name is not one a
    /// scenario, a selection (`-a`) and a file name can carry ([`name_error`]).
    pub fn with(self, algorithm: impl Algorithm + 'static) -> Self {
        // A registry lives as long as the program; its algorithms are shared by reference.
        self.with_static(Box::leak(Box::new(algorithm)))
    }

    /// As [`Registry::with`], for an algorithm that is already `'static`.
    ///
    /// # Panics
    /// If an algorithm of the same name is already registered, or its name or a variant's is
    /// not one a scenario, a selection (`-a`) and a file name can carry ([`info_error`]).
    pub fn with_static(mut self, algorithm: &'static dyn Algorithm) -> Self {
        let info = algorithm.info();
        let name = info.name;
        if let Some(e) = info_error(&info) {
            panic!("{e}");
        }
        assert!(
            self.algorithms.iter().all(|a| a.info().name != name),
            "an algorithm named `{name}` is already registered"
        );
        self.algorithms.push(algorithm);
        self
    }

    /// Registers a checker by property name, so scenarios (`checks.properties`), algorithms'
    /// promised properties, `sincro check --properties` and `sincro show --check` can name it.
    /// A user checker shadows a built-in one of the same name.
    pub fn with_checker(
        mut self,
        property: &'static str,
        build: impl Fn(&Scenario, u64) -> Box<dyn Checker> + Send + Sync + 'static,
    ) -> Self {
        self.checkers.retain(|c| c.0 != property);
        self.checkers.push((property, std::sync::Arc::new(build)));
        self
    }

    /// Makes this registry the one every command and free function of this crate reads.
    /// Only the first call wins; a later one gives its registry back.
    pub fn install(self) -> Result<(), Registry> {
        INSTALLED.set(self)
    }

    /// The installed registry, or the built-in one.
    pub fn current() -> &'static Registry {
        INSTALLED.get_or_init(Registry::builtin)
    }

    /// Every algorithm, in registration order.
    pub fn algorithms(&self) -> &[&'static dyn Algorithm] {
        &self.algorithms
    }

    /// Whether this registry holds an algorithm that is not a built-in one (a user's binary).
    fn has_own_algorithms(&self) -> bool {
        let builtin = Registry::builtin();
        self.algorithms.iter().any(|a| {
            builtin
                .algorithms
                .iter()
                .all(|b| b.info().name != a.info().name)
        })
    }

    /// The algorithm called `name`, or an error listing the known names.
    pub fn find(&self, name: &str) -> Result<&'static dyn Algorithm, ScenarioError> {
        self.algorithms
            .iter()
            .copied()
            .find(|a| a.info().name == name)
            .ok_or_else(|| {
                let known: Vec<_> = self.algorithms.iter().map(|a| a.info().name).collect();
                // A family's name alone (`mutex`, `Mutex`, `mutex.`): its algorithms are
                // `mutex.*`.
                let family = name.trim_end_matches('.').to_ascii_lowercase();
                // A binary that registers algorithms of its own is that binary: sending the
                // user to one was advice for the stock `sincro` only.
                let own = self.has_own_algorithms();
                let is_family = known.iter().any(|k| k.starts_with(&format!("{family}.")));
                let hint = match closest(name, &known) {
                    // (before a name it begins: `mutex` is no `mutex.quorum` cut short)
                    _ if is_family => {
                        format!("`{family}` is a family: `{family}.*` selects its algorithms; ")
                    }
                    Some(near) if own => format!("did you mean `{near}`? "),
                    // A name near a built-in one may still be the user's own (`election.leases`).
                    Some(near) => format!(
                        "did you mean `{near}`? (an algorithm of your own is known only to a \
                         binary that registers it: run this with that binary) "
                    ),
                    None if own => String::new(),
                    // Not a misspelt one of these: perhaps an algorithm of the user's own.
                    None => "an algorithm of your own is known only to a binary that \
                             registers it (`sincro::cli::main_with(Registry::builtin().with(..))`): \
                             run this with that binary; "
                        .to_string(),
                };
                // Escaped: a NUL or a control character printed raw looks like a known name.
                ScenarioError(format!(
                    "unknown algorithm `{}`; {hint}known algorithms: {}",
                    name.escape_debug(),
                    known.join(", ")
                ))
            })
    }

    /// The algorithms a selection names; see [`select`].
    pub fn select(&self, spec: &str) -> Result<Vec<&'static dyn Algorithm>, ScenarioError> {
        let all = &self.algorithms;
        let mut chosen = vec![false; all.len()];
        // `mutex.centralized,` ran as if the comma were not there (stop 74's probe), where
        // `--properties` refuses an empty item: a list with a hole is a typo, said as such.
        if spec
            .split(',')
            .any(|i| i.trim().trim_start_matches('!').trim().is_empty())
        {
            return Err(ScenarioError(format!(
                "the selection `{}` has an empty item: give names (`mutex.token-ring`), family \
                 globs (`mutex.*`) or `all`, separated by commas; `!` before one excludes it",
                spec.escape_debug()
            )));
        }
        for item in spec.split(',').map(str::trim) {
            let (keep, pattern) = match item.strip_prefix('!') {
                Some(rest) => (false, rest.trim_start()),
                None => (true, item),
            };
            if pattern.trim_end_matches('*').contains('*') || pattern.ends_with("**") {
                return Err(ScenarioError(format!(
                    "`{pattern}`: a `*` matches only at the end of a selection (`mutex.*`: every \
                     name that starts with `mutex.`)"
                )));
            }
            let matches = |name: &str| match pattern.strip_suffix('*') {
                _ if pattern == "all" => true,
                Some(prefix) => name.starts_with(prefix),
                None => name == pattern,
            };
            let mut any = false;
            for (i, alg) in all.iter().enumerate() {
                if matches(alg.info().name) {
                    chosen[i] = keep;
                    any = true;
                }
            }
            if !any {
                if let Some(prefix) = pattern.strip_suffix('*') {
                    let families: std::collections::BTreeSet<&str> = all
                        .iter()
                        .filter_map(|a| a.info().name.split_once('.').map(|(f, _)| f))
                        .collect();
                    return Err(ScenarioError(format!(
                        "`{pattern}` matches no algorithm: no name starts with `{prefix}` \
                         (families: {})",
                        families
                            .iter()
                            .map(|f| format!("{f}.*"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )));
                }
                // the error lists the known names
                self.find(pattern)?;
            }
        }
        let out: Vec<_> = all
            .iter()
            .zip(chosen)
            .filter_map(|(a, c)| c.then_some(*a))
            .collect();
        if out.is_empty() {
            return Err(ScenarioError(format!("`{spec}` selects no algorithm")));
        }
        Ok(out)
    }

    /// Runs a scenario with the algorithm it names.
    pub fn run_scenario(
        &self,
        scenario: &Scenario,
        options: RunOptions,
    ) -> Result<Outcome, ScenarioError> {
        let alg = self.find(&scenario.algorithm)?;
        check_expect(&alg.info(), scenario)?;
        alg.run(scenario, options)
    }

    /// The checker of `property` for `scenario`: a registered user checker first, then the
    /// built-in one ([`sincro_checkers::by_name`]). `None` for an unknown property.
    pub fn checker(
        &self,
        property: &str,
        scenario: &Scenario,
        liveness_bound_ms: u64,
    ) -> Option<Box<dyn Checker>> {
        match self.checkers.iter().find(|c| c.0 == property) {
            Some((_, build)) => Some(build(scenario, liveness_bound_ms)),
            None => sincro_checkers::by_name(property, scenario, liveness_bound_ms),
        }
    }

    /// Every property name a checker can be built for: the built-in ones, then the user's.
    pub fn properties(&self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = sincro_checkers::PROPERTIES.to_vec();
        for (p, _) in &self.checkers {
            if !out.contains(p) {
                out.push(p);
            }
        }
        out
    }
}

/// Why `name` cannot name an algorithm, if it cannot: it goes into file names
/// (`<name>.<variant>.seed<N>.json`, a slash made the failure file unwritable) and into
/// selections (`-a a,b`, `mutex.*`, `!x`), so it is ASCII letters, digits, `.`, `-` and `_`,
/// not empty, and starts with a letter or a digit.
pub fn name_error(name: &str) -> Option<String> {
    let ok = name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
        && name
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric());
    (!ok).then(|| {
        format!(
            "an algorithm's name is ASCII letters, digits, '.', '-' and '_', starting with a \
             letter or a digit (it goes into file names and `-a` selections): `{name}` is not"
        )
    })
}

/// Why `info`'s name or one of its variants' names cannot be registered, if so: the
/// algorithm's per [`name_error`]; a variant's goes into file names too
/// (`<name>.<variant>.seed<N>.json`: `time/out` made the failure file unwritable and the
/// failure was lost), so it is ASCII letters, digits, `-` and `_`, starting with a letter or
/// a digit (no `.`, which separates it from the name); the names are distinct.
pub fn info_error(info: &AlgorithmInfo) -> Option<String> {
    if let Some(e) = name_error(info.name) {
        return Some(e);
    }
    for (i, v) in info.variants.iter().enumerate() {
        let ok = v
            .name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_'))
            && v.name
                .bytes()
                .next()
                .is_some_and(|b| b.is_ascii_alphanumeric());
        if !ok {
            return Some(format!(
                "{}: a variant's name is ASCII letters, digits, '-' and '_', starting with a \
                 letter or a digit (it goes into file names: `<algorithm>.<variant>.seed<N>.json`): \
                 `{}` is not",
                info.name, v.name
            ));
        }
        if info.variants[..i].iter().any(|w| w.name == v.name) {
            return Some(format!(
                "{}: two variants are named `{}`",
                info.name, v.name
            ));
        }
    }
    None
}

/// Every algorithm of the [installed](Registry::install) registry, in a fixed order.
pub fn registry() -> Vec<&'static dyn Algorithm> {
    Registry::current().algorithms().to_vec()
}

/// The algorithm called `name` in the installed registry, or an error listing the known names.
pub fn find(name: &str) -> Result<&'static dyn Algorithm, ScenarioError> {
    Registry::current().find(name)
}

/// The algorithms a selection names, in registry order: comma-separated items, each `all`, an
/// exact name (`mutex.token-ring`), or a family glob (`clock.*`); an item starting with `!`
/// removes what it names (`all,!clock.*`). Errors name the unknown item.
pub fn select(spec: &str) -> Result<Vec<&'static dyn Algorithm>, ScenarioError> {
    Registry::current().select(spec)
}

/// Runs a scenario with the algorithm it names (in the installed registry).
pub fn run_scenario(scenario: &Scenario, options: RunOptions) -> Result<Outcome, ScenarioError> {
    Registry::current().run_scenario(scenario, options)
}

/// Checkers for the properties the scenario asks for (default: all the algorithm declares);
/// `custom` may build a property's checker itself (e.g. validity with the algorithm's own
/// ranks), `Ok(None)` falls back to the installed registry's checkers by name. A property the
/// algorithm does not promise but one of `judged_elsewhere` names (a test's own checkers, see
/// [`Algorithm::run_with`]) is left to that checker: `checks.properties` may name it, even
/// alone.
pub(crate) fn checkers_with(
    info: &AlgorithmInfo,
    sc: &Scenario,
    bound_ms: u64,
    judged_elsewhere: &[&str],
    custom: impl Fn(&str) -> Result<Option<Box<dyn Checker>>, ScenarioError>,
) -> Result<Vec<Box<dyn Checker>>, ScenarioError> {
    let wanted: Vec<String> = match &sc.checks.properties {
        Some(p) => p.clone(),
        None => info.properties.iter().map(|p| p.to_string()).collect(),
    };
    wanted
        .iter()
        .filter(|p| {
            info.properties.contains(&p.as_str()) || !judged_elsewhere.contains(&p.as_str())
        })
        .map(|p| {
            if !info.properties.contains(&p.as_str()) {
                return Err(ScenarioError(format!(
                    "checks.properties names `{p}`, which {} does not promise; it promises: {}",
                    info.name,
                    info.properties.join(", ")
                )));
            }
            if let Some(c) = custom(p)? {
                return Ok(c);
            }
            Registry::current()
                .checker(p, sc, bound_ms)
                .ok_or_else(|| ScenarioError(format!("no checker for property `{p}`")))
        })
        .collect()
}

/// Rejects `checks.liveness_bound_ms` when no property of the run judges against a bound: every
/// one checked is built in and needs none (a user's own property may use it). The bound would
/// change nothing, and a scenario that sets it believes it does.
fn check_bound_is_used(sc: &Scenario, checked: &[String]) -> Result<(), ScenarioError> {
    let Some(bound) = sc.checks.liveness_bound_ms else {
        return Ok(());
    };
    if checked
        .iter()
        .all(|p| sincro_checkers::ignores_liveness_bound(p))
    {
        return Err(ScenarioError(format!(
            "checks.liveness_bound_ms = {bound} is set, but no property this run checks ({}) \
             judges against a liveness bound: remove it, or check a property that does (such \
             as liveness or election_termination)",
            checked.join(", ")
        )));
    }
    Ok(())
}

/// Rejects what a scenario file asks for that could never be met or would change nothing: an
/// `expect` (or an engine exception's verdict) that names a property no checker of
/// the algorithm can report, or a `checks.liveness_bound_ms` no checked property judges
/// against ([`Registry::run_scenario`] calls it, so every scenario file is
/// checked; a test's own extra checkers, given to [`Algorithm::run_with`], are not known here) (those it promises, a registered checker's, or an assumption a
/// checker verifies first such as `memory_access_pattern`): it could never be met.
pub fn check_expect(info: &AlgorithmInfo, sc: &Scenario) -> Result<(), ScenarioError> {
    let checked: Vec<String> = match &sc.checks.properties {
        Some(p) => p.clone(),
        None => info.properties.iter().map(|p| p.to_string()).collect(),
    };
    check_bound_is_used(sc, &checked)?;
    let known = |p: &str| {
        info.properties.contains(&p)
            || Registry::current().properties().contains(&p)
            || p == sincro_checkers::omega::MEMORY_ACCESS_PATTERN
    };
    let expects = sc.expect.iter().map(|e| ("expect".to_string(), e)).chain(
        sc.engine_exceptions
            .iter()
            .enumerate()
            .map(|(i, x)| (format!("engine_exceptions[{i}].verdict"), &x.verdict)),
    );
    for (field, e) in expects {
        // A run a checker or the scenario's factory panicked in is "could not judge" of this
        // pseudo-property: campaigns write such failures with it, and they replay (stop 64:
        // `replay`, `run`, `show` and `shrink` refused the files `fuzz` had just written).
        // So is a run a broken engine invariant stopped: its file is the bug report.
        if matches!(e, sincro_harness::Expect::Unjudged(p)
            if p == sincro_harness::engine::HARNESS_PANIC
                || p == sincro_harness::engine::ENGINE_INVARIANT)
        {
            continue;
        }
        if let sincro_harness::Expect::Violation(p) | sincro_harness::Expect::Unjudged(p) = e {
            if !known(p) {
                return Err(ScenarioError(format!(
                    "{field} names the property `{p}`, which {} does not promise; it \
                     promises: {}",
                    info.name,
                    info.properties.join(", ")
                )));
            }
            if p == sincro_checkers::omega::MEMORY_ACCESS_PATTERN {
                continue;
            }
            match sc.checks.properties.as_ref() {
                Some(checked) if !checked.iter().any(|c| c == p) => {
                    return Err(ScenarioError(format!(
                        "{field} names the property `{p}`, which checks.properties leaves \
                         unchecked (it checks {}): it could never be met",
                        checked.join(", ")
                    )))
                }
                // A run checks the promised properties unless `checks.properties` names
                // others: a registered property this algorithm does not promise is never
                // checked, so expecting its violation could never be met.
                None if !info.properties.contains(&p.as_str()) => {
                    return Err(ScenarioError(format!(
                        "{field} names the property `{p}`, which {} does not promise, so a run \
                         does not check it (it checks {}): it could never be met (a test that \
                         gives its own checker of it to `Algorithm::run_with` may name it in \
                         checks.properties)",
                        info.name,
                        info.properties.join(", ")
                    )))
                }
                _ => {}
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {

    /// Parameters that break a correct variant's own timing with no fault at all are refused,
    /// naming the parameter; the same algorithm with the boundary's good side runs (stop 61's
    /// probe: each of these failed its correct variant with no fault injected).
    #[test]
    fn misconfigured_parameters_are_refused_before_the_run() {
        let run = |alg: &str, nodes: usize, params: &str| {
            let sc = sincro_harness::Scenario::from_json(&format!(
                r#"{{"algorithm": "{alg}", "nodes": {nodes}, "seed": 1, "duration_ms": 300,
                    "network": {{"latency": {{"uniform": {{"min_ms": 1, "max_ms": 20}}}}}},
                    "params": {params}}}"#
            ))
            .unwrap();
            super::find(alg)
                .unwrap()
                .run(&sc, sincro_harness::RunOptions::default())
                .map(|_| ())
        };
        let refused = [
            (
                "mutex.token-ring",
                3,
                r#"{"ack_timeout_ms": 1}"#,
                "ack_timeout_ms = 1",
            ),
            (
                "mutex.ricart-agrawala-ft",
                3,
                r#"{"retry_ms": 2, "max_retries": 1}"#,
                "retry_ms = 2",
            ),
            (
                "election.lease",
                3,
                r#"{"heartbeat_ms": 25, "election_timeout_ms": 30, "lease_ms": 60}"#,
                "election_timeout_ms = 30",
            ),
            (
                "election.lease",
                3,
                r#"{"heartbeat_ms": 5, "election_timeout_ms": 200, "lease_ms": 10}"#,
                "lease_ms = 10",
            ),
            (
                "election.bully",
                5,
                r#"{"initial_leader": 2}"#,
                "initial_leader = 2",
            ),
            (
                "election.ring",
                5,
                r#"{"initial_leader": 0}"#,
                "initial_leader = 0",
            ),
            (
                "mutex.ricart-agrawala",
                3,
                r#"{"max_retries": 2}"#,
                "never resends",
            ),
            (
                "clock.cristian",
                3,
                r#"{"max_delay_ms": 20}"#,
                "max_delay_ms = 20",
            ),
            (
                "clock.ntp-peers",
                3,
                r#"{"max_delay_ms": 1}"#,
                "max_delay_ms = 1",
            ),
            (
                "clock.cristian",
                3,
                r#"{"max_delay_ms": 86400001}"#,
                "max_delay_ms must be within",
            ),
            (
                "clock.berkeley",
                3,
                r#"{"timeout_ms": 40}"#,
                "timeout_ms = 40",
            ),
            // above heartbeat + latency (45), within a vote and a heartbeat (3 × 20)
            (
                "election.lease",
                3,
                r#"{"heartbeat_ms": 25, "election_timeout_ms": 60, "lease_ms": 80}"#,
                "must exceed 3 × the links' latency",
            ),
        ];
        for (alg, nodes, params, needle) in refused {
            let e = run(alg, nodes, params).expect_err(alg);
            assert!(e.0.contains(needle), "{alg}: {e}");
        }
        let accepted = [
            ("mutex.token-ring", 3, r#"{"ack_timeout_ms": 41}"#),
            ("mutex.ricart-agrawala-ft", 3, r#"{"retry_ms": 41}"#),
            (
                "election.lease",
                3,
                r#"{"heartbeat_ms": 25, "election_timeout_ms": 61, "lease_ms": 80}"#,
            ),
            ("election.bully", 5, r#"{"initial_leader": 4}"#),
            ("election.ring", 5, r#"{"initial_leader": 4}"#),
            ("clock.cristian", 3, r#"{"max_delay_ms": 21}"#),
            ("clock.ntp-peers", 3, r#"{"max_delay_ms": 21}"#),
            ("clock.berkeley", 3, r#"{"timeout_ms": 41}"#),
        ];
        for (alg, nodes, params) in accepted {
            run(alg, nodes, params).unwrap_or_else(|e| panic!("{alg} {params}: {e}"));
        }
    }

    /// Timeouts are on each node's own clock: one running fast by the drift bound counts a
    /// real round trip as more of its ms. The defaults are lengthened for it (at 5 s latency
    /// and 1000 ppm, bully and ring called an election against a live leader and the token
    /// ring made two tokens, with no fault at all), and a parameter too short for it is
    /// refused as a too-short one is without drift.
    #[test]
    fn timeouts_allow_for_the_clocks_drift() {
        let run = |alg: &str, nodes: usize, duration_ms: u64, lat_ms: u64, extra: &str| {
            let drift: Vec<String> = (0..nodes)
                .map(|i| {
                    format!(
                        r#"{{"node": {i}, "drift_ppm": {}}}"#,
                        if i == 0 { 1000 } else { -1000 }
                    )
                })
                .collect();
            let sc = sincro_harness::Scenario::from_json(&format!(
                r#"{{"algorithm": "{alg}", "nodes": {nodes}, "seed": 1, "duration_ms": {duration_ms},
                    "network": {{"latency": {{"constant": {{"ms": {lat_ms}}}}}}},
                    "clocks": {{"rho_ppm": 1000, "nodes": [{}]}}{extra}}}"#,
                drift.join(", ")
            ))
            .unwrap();
            super::run_scenario(&sc, sincro_harness::RunOptions::default())
        };
        let probe = r#", "workload": [{"at_ms": 100, "node": 0, "input": "probe"}]"#;
        let acquire = |at: u64| {
            (0..3)
                .map(|n| format!(r#"{{"at_ms": {}, "node": {n}, "input": {{"acquire": {{"hold_ms": 5000}}}}}}"#, at + n))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let tokens = format!(r#", "workload": [{}, {}]"#, acquire(100), acquire(30_000));
        for (alg, nodes, duration_ms, extra) in [
            ("election.bully", 2, 60_000, probe),
            ("election.ring", 2, 60_000, probe),
            ("mutex.token-ring", 3, 400_000, tokens.as_str()),
        ] {
            let out =
                run(alg, nodes, duration_ms, 5_000, extra).unwrap_or_else(|e| panic!("{alg}: {e}"));
            assert!(
                !matches!(out.verdict, sincro_harness::Verdict::Violation(_)),
                "{alg}: {}",
                out.verdict
            );
        }
        // 1 ms links: 1000002 > 1000000 + 1 was taken, and a follower's fast clock timed
        // out between two heartbeats of a slow leader.
        for (alg, lat_ms, params, needle) in [
            (
                "election.terms",
                1,
                r#"{"heartbeat_ms": 1000000, "election_timeout_ms": 1000002}"#,
                "(1000000 + 1 ms; 1002004 ms with clocks drifting up to 1000 ppm)",
            ),
            (
                "election.lease",
                1,
                r#"{"heartbeat_ms": 1000000, "election_timeout_ms": 1000002, "lease_ms": 2300000}"#,
                "(1000000 + 1 ms; 1002004 ms with clocks drifting up to 1000 ppm)",
            ),
            (
                "mutex.token-ring",
                5_000,
                r#"{"ack_timeout_ms": 10010}"#,
                "(10010 ms)",
            ),
        ] {
            let e = run(alg, 3, 100_000, lat_ms, &format!(r#", "params": {params}"#))
                .map(|_| ())
                .expect_err(alg);
            assert!(e.0.contains(needle), "{alg}: {e}");
        }
        for (alg, lat_ms, params) in [
            ("mutex.token-ring", 5_000, r#"{"ack_timeout_ms": 10011}"#),
            (
                "election.terms",
                1,
                r#"{"heartbeat_ms": 1000000, "election_timeout_ms": 1002005}"#,
            ),
        ] {
            run(alg, 3, 100_000, lat_ms, &format!(r#", "params": {params}"#))
                .unwrap_or_else(|e| panic!("{alg}: {e}"));
        }
    }

    /// A liveness bound no checked property judges against is refused (it was taken and
    /// changed nothing); with a property that uses it, or by default, it is taken.
    #[test]
    fn a_liveness_bound_nothing_judges_against_is_refused() {
        let run = |alg: &str, checks: &str| {
            let sc = sincro_harness::Scenario::from_json(&format!(
                r#"{{"algorithm": "{alg}", "nodes": 3, "seed": 1, "duration_ms": 300,
                    "checks": {checks}}}"#
            ))
            .unwrap();
            super::run_scenario(&sc, sincro_harness::RunOptions::default()).map(|_| ())
        };
        let e = run(
            "mutex.centralized",
            r#"{"properties": ["mutual_exclusion"], "liveness_bound_ms": 200}"#,
        )
        .unwrap_err();
        assert!(e.0.contains("liveness_bound_ms = 200 is set"), "{e}");
        assert!(e.0.contains("(mutual_exclusion)"), "{e}");
        let e = run("clock.cristian", r#"{"liveness_bound_ms": 200}"#).unwrap_err();
        assert!(e.0.contains("no property this run checks"), "{e}");
        run(
            "mutex.centralized",
            r#"{"properties": ["mutual_exclusion", "liveness"], "liveness_bound_ms": 200}"#,
        )
        .unwrap();
        run("mutex.centralized", r#"{"liveness_bound_ms": 200}"#).unwrap();
        run(
            "mutex.centralized",
            r#"{"properties": ["mutual_exclusion"]}"#,
        )
        .unwrap();
    }

    #[test]
    fn an_algorithm_name_goes_into_file_names_and_selections() {
        for name in registry().iter().map(|a| a.info().name) {
            assert_eq!(super::name_error(name), None, "{name}");
        }
        assert_eq!(super::name_error("demo.lease-primary_2"), None);
        for alg in registry() {
            assert_eq!(super::info_error(&alg.info()), None, "{}", alg.info().name);
        }
        let mut info = registry()[0].info();
        info.variants[0].name = "time/out";
        let e = super::info_error(&info).expect("a slash");
        assert!(e.contains("`time/out` is not"), "{e}");
        info.variants[0].name = "a.b";
        assert!(super::info_error(&info).is_some(), "a dot");
        info.variants[0].name = info.variants[1].name;
        let e = super::info_error(&info).expect("twice");
        assert!(e.contains("two variants are named"), "{e}");
        for bad in [
            "",
            "probe/../../escape",
            "a,b",
            "mutex.*",
            "!x",
            "a b",
            ".hidden",
            "é",
        ] {
            let e = super::name_error(bad).expect(bad);
            assert!(e.contains(&format!("`{bad}` is not")), "{e}");
        }
    }
    use super::*;

    #[test]
    fn select_takes_names_globs_lists_and_exclusions() {
        let names = |spec: &str| -> Vec<&str> {
            select(spec)
                .unwrap()
                .into_iter()
                .map(|a| a.info().name)
                .collect()
        };
        assert_eq!(names("all").len(), registry().len());
        assert_eq!(names("mutex.quorum"), vec!["mutex.quorum"]);
        let mutex = names("mutex.*");
        assert!(mutex.len() >= 6 && mutex.iter().all(|n| n.starts_with("mutex.")));
        let rest = names("all,!mutex.*");
        assert_eq!(rest.len() + mutex.len(), registry().len());
        assert!(rest.iter().all(|n| !n.starts_with("mutex.")));
        assert_eq!(
            names("mutex.token-ring, mutex.centralized"),
            vec!["mutex.centralized", "mutex.token-ring"],
            "registry order"
        );
        let err = |spec: &str| match select(spec) {
            Ok(_) => panic!("`{spec}` should not select anything"),
            Err(e) => e.0,
        };
        let e = err("mutex.nope");
        assert!(e.contains("unknown algorithm `mutex.nope`"), "{e}");
        assert!(err("mutex.*,!mutex.*").contains("selects no algorithm"));
        for holed in [
            "mutex.centralized,",
            ",mutex.centralized",
            "all,,mutex.*",
            "all,!",
            "",
        ] {
            assert!(err(holed).contains("has an empty item"), "{holed:?}");
        }
    }

    /// An unknown name says what to do: a misspelt built-in gets its right spelling; any
    /// other (a user's algorithm given to the plain `sincro`) the binary to run it with.
    #[test]
    fn an_unknown_algorithm_names_the_fix() {
        let unknown = |name: &str| Registry::builtin().find(name).err().expect("unknown").0;
        let e = unknown("mutex.ricart-agrawla");
        assert!(e.contains("did you mean `mutex.ricart-agrawala`?"), "{e}");
        // Near a built-in name, it may still be the user's own: both are said.
        let e = unknown("election.leases");
        assert!(e.contains("did you mean `election.lease`?"), "{e}");
        assert!(
            e.contains("known only to a binary that registers it"),
            "{e}"
        );
        let e = unknown("demo.lease-primary");
        assert!(
            e.contains("known only to a binary that registers it"),
            "{e}"
        );
        assert!(!e.contains("did you mean"), "{e}");
        let e = unknown("MUTEX.CENTRALIZED");
        assert!(e.contains("did you mean `mutex.centralized`?"), "{e}");
        // A name cut short gets the shortest name it begins; two letters are too few.
        let e = unknown("mutex.ricart");
        assert!(e.contains("did you mean `mutex.ricart-agrawala`?"), "{e}");
        let e = unknown("el");
        assert!(!e.contains("did you mean"), "{e}");
        let e = unknown("mutex.centralized\0");
        assert!(e.contains("`mutex.centralized\\0`"), "{e}");
        for family in ["mutex", "Mutex", "mutex."] {
            let e = unknown(family);
            assert!(
                e.contains("`mutex.*` selects its algorithms"),
                "{family}: {e}"
            );
        }
        assert_eq!(
            select("order.total, ! order.total, mutex.quorum")
                .unwrap()
                .len(),
            1
        );
        let e = select("mutex.*x").err().expect("a star inside").0;
        assert!(e.contains("matches only at the end"), "{e}");
        let e = select("mutexx.*").err().expect("nothing matches").0;
        assert!(
            e.contains("matches no algorithm") && e.contains("mutex.*"),
            "{e}"
        );
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "ab"), 2);
    }

    /// An `expect` that no run could meet is bad input: a registered property this algorithm
    /// does not promise is checked only when `checks.properties` names it.
    #[test]
    fn an_expect_of_a_property_the_run_does_not_check_is_refused() {
        let alg = find("mutex.centralized").unwrap();
        let mut sc = alg.generate("lease-timeout", 1, &Default::default());
        sc.expect = Some(sincro_harness::Expect::Violation(
            "leader_uniqueness".into(),
        ));
        let e = check_expect(&alg.info(), &sc).unwrap_err().0;
        assert!(
            e.contains("does not promise, so a run does not check it"),
            "{e}"
        );
        sc.checks.properties = Some(vec!["leader_uniqueness".into()]);
        assert!(check_expect(&alg.info(), &sc).is_ok(), "checked when named");
        sc.checks.properties = None;
        sc.expect = Some(sincro_harness::Expect::Violation("mutual_exclusion".into()));
        assert!(
            check_expect(&alg.info(), &sc).is_ok(),
            "a promised property"
        );
        // What a campaign writes of a run whose checker panicked replays (stop 64: refused).
        sc.expect = Some(sincro_harness::Expect::Unjudged(
            sincro_harness::engine::HARNESS_PANIC.into(),
        ));
        assert!(check_expect(&alg.info(), &sc).is_ok());
        sc.checks.properties = Some(vec!["mutual_exclusion".into()]);
        assert!(check_expect(&alg.info(), &sc).is_ok());
        // and so does one a broken engine invariant stopped (the file that reports the bug)
        sc.expect = Some(sincro_harness::Expect::Unjudged(
            sincro_harness::engine::ENGINE_INVARIANT.into(),
        ));
        assert!(check_expect(&alg.info(), &sc).is_ok());
        sc.expect = Some(sincro_harness::Expect::Unjudged(
            sincro_harness::engine::HARNESS_PANIC.into(),
        ));
        // ... but not as a violation: no checker reports it.
        sc.expect = Some(sincro_harness::Expect::Violation(
            sincro_harness::engine::HARNESS_PANIC.into(),
        ));
        assert!(check_expect(&alg.info(), &sc).is_err());
    }

    /// Params are named: an array (which serde reads into a struct by position, `[1, 2]`
    /// moving the coordinator) is bad input.
    #[test]
    fn params_given_as_an_array_are_refused() {
        let alg = find("mutex.centralized").unwrap();
        let mut sc = alg.generate("correct", 1, &Default::default());
        sc.params = serde_json::json!([1, 2]);
        let e = alg.run(&sc, RunOptions::new(false)).unwrap_err().0;
        assert!(e.contains("expected an object of named parameters"), "{e}");
    }
}
