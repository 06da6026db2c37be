//! The one typed way to describe an algorithm: [`Spec`].
//!
//! An algorithm — a built-in one or a user's — is a [`Process`] (its node) plus a [`Spec`]
//! written next to it, in the same file: its name, typed parameters, typed [`Variant`]s,
//! the properties it promises, its fault model (stated once), how to build a node, a typed
//! workload generator and its liveness bound. A blanket implementation turns every `Spec` into
//! an [`Algorithm`], so whatever a built-in algorithm can do (fuzz, shrink, replay, render,
//! matrix, check) a user's can, through the same API and with no adapter code.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use sincro_algorithms::spec::{Correct, Spec, Timed};
//! use sincro_algorithms::Algorithm;
//! use sincro_harness::fault::{FaultClass, FaultModel};
//! use sincro_harness::{Ctx, NodeId, Observation, Process, SimRng};
//!
//! /// Every node says it saw the ping.
//! #[derive(Default)]
//! struct Pinger;
//!
//! #[derive(Clone, Debug, Serialize, Deserialize)]
//! #[serde(rename_all = "snake_case")]
//! enum Input { Ping }
//!
//! impl Process for Pinger {
//!     type Msg = ();
//!     type Timer = ();
//!     type Input = Input;
//!     type Stable = ();
//!     fn on_message(&mut self, ctx: &mut Ctx<'_, Self>, _from: NodeId, _msg: ()) {
//!         ctx.observe(Observation::Note { text: "pinged".into() });
//!     }
//!     fn on_input(&mut self, ctx: &mut Ctx<'_, Self>, _input: Input) {
//!         ctx.broadcast(());
//!     }
//! }
//!
//! #[derive(Clone)]
//! struct PingSpec;
//!
//! impl Spec for PingSpec {
//!     type Node = Pinger;
//!     type Params = ();
//!     type Variant = Correct;
//!     fn name(&self) -> &'static str { "demo.ping" }
//!     fn properties(&self) -> Vec<&'static str> { vec![] }
//!     fn fault_model(&self) -> FaultModel {
//!         FaultModel { tolerates: vec![FaultClass::Reordering], summary: "any delay", ..FaultModel::default() }
//!     }
//!     fn node(&self, _: Correct, _: &(), _id: NodeId) -> Pinger { Pinger }
//!     fn workload(&self, rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<Timed<Input>> {
//!         vec![Timed { at_ms: rng.range_u64(0, active_ms), node: rng.index(nodes), input: Input::Ping }]
//!     }
//! }
//!
//! let sc = PingSpec.generate("correct", 7, &Default::default());
//! let out = PingSpec.run(&sc, Default::default()).unwrap();
//! assert!(out.verdict.is_pass());
//!
//! // The same spec explores every delivery order (bounded), with no adapter code.
//! use sincro_harness::explore::ExploreOptions;
//! let mut small = sc.clone();
//! small.workload.truncate(1);
//! let report = PingSpec.explore(&small, &ExploreOptions::default()).unwrap();
//! assert!(report.counterexample.is_none() && report.states > 1);
//! ```

use crate::registry::{Algorithm, AlgorithmInfo, VariantInfo};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sincro_harness::engine::explore::{Bounds, Choice};
use sincro_harness::engine::{self, Factory, Outcome, RunOptions};
use sincro_harness::explore::{ExploreOptions, ExploreReport};
use sincro_harness::fault::{FaultClass, FaultModel};
use sincro_harness::gen::{Draft, GenOptions};
use sincro_harness::net::{Adjacency, Topology};
use sincro_harness::{Checker, NodeId, Process, Scenario, ScenarioError, SimRng, WorkloadItem};
use std::fmt::Debug;
use std::rc::Rc;

/// A variant of an algorithm: `correct` (the textbook algorithm) or a named twin, often a
/// deliberately buggy one that fuzzing must catch.
///
/// Write the enum with [`variants!`](crate::variants), which derives everything from one
/// line per variant; algorithms without twins use [`Correct`].
pub trait Variant: Copy + Eq + Debug + Send + Sync + 'static {
    /// Every variant, the textbook one first.
    const ALL: &'static [Self];
    /// Name used in scenarios and on the command line (`correct`, `lease-timeout`).
    fn name(self) -> &'static str;
    /// What it does differently, in one line.
    fn summary(self) -> &'static str;
    /// True for a deliberately broken variant (fuzzing must find its violation).
    fn buggy(self) -> bool;
    /// True for a *deep* planted bug: one that needs several events in a particular order, so
    /// a campaign must catch it only when it runs at least
    /// [`DEEP_BUG_SEEDS`](crate::registry::DEEP_BUG_SEEDS) seeds (`sincro table search`
    /// measures how soon each strategy finds it). Marked `(deep)` in the `variants!` macro.
    fn deep(self) -> bool {
        false
    }

    /// The variant called `name`, or an error listing the known names.
    fn from_name(name: &str) -> Result<Self, String> {
        Self::ALL
            .iter()
            .copied()
            .find(|v| v.name() == name)
            .ok_or_else(|| {
                let known: Vec<_> = Self::ALL.iter().map(|v| v.name()).collect();
                crate::registry::unknown_variant(name, "", &known)
            })
    }
}

/// Declares a variant enum and its [`Variant`] implementation in one go:
///
/// ```
/// sincro_algorithms::variants! {
///     /// Variants of my lock.
///     pub enum LockVariant {
///         Correct = "correct", "the textbook algorithm";
///         LeaseTimeout = "lease-timeout" (buggy), "a lease expires while its holder is slow";
///     }
/// }
/// use sincro_algorithms::spec::Variant;
/// assert_eq!(LockVariant::ALL.len(), 2);
/// assert!(LockVariant::LeaseTimeout.buggy());
/// assert_eq!(LockVariant::from_name("correct"), Ok(LockVariant::Correct));
/// ```
#[macro_export]
macro_rules! variants {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $var:ident = $text:literal $(($buggy:ident))?, $summary:literal; )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        $vis enum $name {
            $(
                #[doc = $summary]
                $var,
            )+
        }

        impl $crate::spec::Variant for $name {
            const ALL: &'static [Self] = &[$($name::$var),+];
            fn name(self) -> &'static str {
                match self { $($name::$var => $text,)+ }
            }
            fn summary(self) -> &'static str {
                match self { $($name::$var => $summary,)+ }
            }
            fn buggy(self) -> bool {
                match self { $($name::$var => $crate::variants!(@buggy $($buggy)?),)+ }
            }
            fn deep(self) -> bool {
                match self { $($name::$var => $crate::variants!(@deep $($buggy)?),)+ }
            }
        }
    };
    (@buggy buggy) => { true };
    (@buggy deep) => { true };
    (@buggy) => { false };
    (@deep deep) => { true };
    (@deep $($x:ident)?) => { false };
}

variants! {
    /// The only variant of an algorithm without twins: the textbook algorithm.
    pub enum Correct {
        Correct = "correct", "the textbook algorithm";
    }
}

/// The parameters of an algorithm that takes none: a scenario leaves `params` out or gives
/// `{}`, and any key is refused (exit 2) as a misspelt parameter is. (`serde_json::Value`
/// in its place read every object, so `election.anel1` ran `{"zzz": 1}`: stop 74's probe.)
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoParams {}

/// One typed workload command: `input` is given to `node` at `at_ms` of global time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Timed<I> {
    /// When, ms of global time.
    pub at_ms: u64,
    /// To which node.
    pub node: NodeId,
    /// The command.
    pub input: I,
}

/// What a [`Spec`] sees of one run: the scenario, its variant and its parameters (parsed from
/// `params`, with serde defaults, then completed by [`Spec::prepare`]).
pub struct Setup<'a, S: Spec> {
    /// The scenario being run.
    pub scenario: &'a Scenario,
    /// The variant it names.
    pub variant: S::Variant,
    /// Its parameters.
    pub params: S::Params,
}

impl<S: Spec> Setup<'_, S> {
    /// Number of nodes.
    pub fn nodes(&self) -> usize {
        self.scenario.nodes
    }

    /// The largest latency the scenario can produce, ms, delay spikes of the fault plan
    /// included (see [`max_latency_ms`]).
    pub fn max_latency_ms(&self) -> u64 {
        max_latency_ms(self.scenario)
    }

    /// The usual latency bound, ms, without the spikes of the fault plan (see
    /// [`usual_latency_ms`]).
    pub fn usual_latency_ms(&self) -> u64 {
        usual_latency_ms(self.scenario)
    }

    /// The run's drift bound, ppm (`clocks.rho_ppm`, rounded up; every node's drift is
    /// within it).
    pub fn drift_ppm_max(&self) -> u32 {
        drift_ppm_max(self.scenario)
    }

    /// A timeout of `ms` local ms sized for a real wait, lengthened for the run's fast clocks
    /// (see [`for_fast_clocks_ms`]).
    pub fn for_fast_clocks_ms(&self, ms: u64) -> u64 {
        for_fast_clocks_ms(ms, self.drift_ppm_max())
    }

    /// How long a clock slowed by the run's drift bound takes to count `ms` (see
    /// [`on_slow_clocks_ms`]).
    pub fn on_slow_clocks_ms(&self, ms: u64) -> u64 {
        on_slow_clocks_ms(ms, self.drift_ppm_max())
    }

    /// The workload, typed. Items that do not parse as the node's input are skipped (the
    /// engine reports them as bad input when the run starts). Each call decodes the items
    /// again: a typed input (a generated scenario's) is cloned, a JSON one deserialized
    /// from the borrowed value
    /// ([`WorkloadInput::decode`](sincro_harness::WorkloadInput::decode)).
    pub fn inputs(&self) -> impl Iterator<Item = Timed<<S::Node as Process>::Input>> + '_ {
        self.scenario.workload.iter().filter_map(|w| {
            w.input
                .decode::<<S::Node as Process>::Input>()
                .ok()
                .map(|input| Timed {
                    at_ms: w.at_ms,
                    node: w.node,
                    input,
                })
        })
    }
}

/// The links of a scenario's `network.topology` an algorithm needs ([`Spec::links`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Links {
    /// A link between every two nodes, both ways: a node may send to any other (most
    /// algorithms of the seed texts assume it).
    All,
    /// The links the topology has, whatever they are: the nodes send only to the neighbours
    /// they are given (graph algorithms), or [`Spec::prepare`] checks the topology itself
    /// (the ring elections: the logical ring's links).
    Topology,
}

/// Checks that `sc`'s topology gives `spec` the links it declares it needs ([`Spec::links`]);
/// the error names the algorithm and the first missing link.
pub fn check_links<S: Spec>(spec: &S, sc: &Scenario) -> Result<(), String> {
    if spec.links() == Links::Topology || sc.network.topology == Topology::Complete {
        return Ok(());
    }
    let adj = Adjacency::new(sc.nodes, &sc.network.topology)?;
    let n = sc.nodes;
    for a in 0..n {
        if adj.neighbours(a).len() + 1 == n {
            continue;
        }
        let b = (0..n)
            .find(|&b| b != a && !adj.contains(a, b))
            .expect("a node with fewer than n - 1 neighbours misses one");
        let (a, b) = (a.min(b), a.max(b));
        return Err(format!(
            "{} may send from any node to any other, so it needs a link between every two \
             nodes, but network.topology has no link {a} – {b}: use \"topology\": \"complete\" \
             (a missing link is not a fault it tolerates; to cut links for a while, use a \
             partition in the fault plan)",
            spec.name()
        ));
    }
    Ok(())
}

/// The description of an algorithm, written next to its [`Process`].
///
/// Implement the required items; the blanket `impl<S: Spec> Algorithm for S` does the shared
/// steps once: the variant lookup, parsing `params`, choosing checkers from the properties
/// (the spec's own [`Spec::checker`] first, then the built-in checkers by name), the liveness
/// bound fallback, the workload in JSON, and the engine dispatch.
pub trait Spec: Clone + Send + Sync + 'static {
    /// The node.
    type Node: Process;
    /// Parameters (`params` of a scenario), with serde defaults; `()` when there are none.
    /// A key of a scenario's `params` that these do not read is refused (exit 2), whether or
    /// not the type says `#[serde(deny_unknown_fields)]`: a misspelt parameter would
    /// otherwise run with its default, unseen.
    type Params: Clone + Debug + Default + Serialize + DeserializeOwned + 'static;
    /// The variants ([`Correct`] when there are no twins).
    type Variant: Variant;

    /// Registered name, `family.algorithm` (e.g. `mutex.centralized`).
    fn name(&self) -> &'static str;
    /// One line.
    fn summary(&self) -> &'static str {
        ""
    }
    /// Where the algorithm is described (a seed text's section, a paper).
    fn source(&self) -> &'static str {
        ""
    }
    /// The properties it promises, by checker name (built-in ones such as
    /// `mutual_exclusion`, or this spec's own from [`Spec::checker`]).
    fn properties(&self) -> Vec<&'static str>;
    /// The faults it tolerates: fuzzing inside this model must never find a violation.
    fn fault_model(&self) -> FaultModel;
    /// The fewest nodes a scenario has (1 by default): a run of fewer is refused (exit 2),
    /// before [`Spec::prepare`] is asked, so a shrinker never goes below it. A campaign asked
    /// for fewer draws from this many up ([`Algorithm::nodes_min`]).
    fn nodes_min(&self) -> usize {
        1
    }

    /// The links of `network.topology` its nodes send over: [`Links::All`] by default (a node
    /// may send to any other). A scenario whose topology lacks a link the algorithm needs is
    /// refused before it runs (exit 2): a message dropped for want of a link is no fault of
    /// the algorithm's, and its liveness would be blamed for it.
    fn links(&self) -> Links {
        Links::All
    }
    /// Checks and completes the parameters for this scenario (e.g. a node id that must
    /// exist, a timeout derived from the latencies). The error names the parameter.
    fn prepare(&self, setup: &mut Setup<'_, Self>) -> Result<(), String> {
        let _ = setup;
        Ok(())
    }
    /// Builds node `id` (at start, and again at each restart after a crash) from the
    /// variant and the prepared parameters.
    fn node(&self, variant: Self::Variant, params: &Self::Params, id: NodeId) -> Self::Node;
    /// A workload for a generated scenario: inputs inside `[0, active_ms]`.
    fn workload(
        &self,
        rng: &mut SimRng,
        nodes: usize,
        active_ms: u64,
    ) -> Vec<Timed<<Self::Node as Process>::Input>>;
    /// Parameters for a generated scenario, drawn from `rng` (a stream of the seed of its
    /// own), given the scenario's nodes, network and faults as drawn so far; `None` (the
    /// default) leaves the algorithm's defaults. Parameters no generated scenario sets are
    /// never fuzzed: `election.lease` lost its leader for good with a lease past its longest
    /// election timeout, a setting no campaign reached (stop 66). The faults at protocol
    /// moments come later and may add latency spikes: derive timeouts from
    /// [`usual_latency_ms`], not the largest latency, so that what is drawn stays valid.
    fn draw_params(&self, rng: &mut SimRng, scenario: &Scenario) -> Option<Self::Params> {
        let _ = (rng, scenario);
        None
    }
    /// How long after the faults stop (ms) every liveness property must be met in this run.
    /// The default, for algorithms without liveness properties, is four times the largest
    /// latency plus 10 ms.
    fn liveness_bound_ms(&self, setup: &Setup<'_, Self>) -> u64 {
        4 * setup.max_latency_ms() + 10
    }
    /// Fault classes outside the model that a buggy variant needs before its bug can show;
    /// generated scenarios of that variant draw them too.
    fn bug_classes(&self, variant: Self::Variant) -> Vec<FaultClass> {
        let _ = variant;
        Vec::new()
    }
    /// The checker of a property this spec defines itself (or builds differently from the
    /// built-in one); `Ok(None)` falls back to the checkers registered by name.
    fn checker(
        &self,
        property: &str,
        setup: &Setup<'_, Self>,
        bound_ms: u64,
    ) -> Result<Option<Box<dyn Checker>>, String> {
        let _ = (property, setup, bound_ms);
        Ok(None)
    }
    /// Completes a generated scenario skeleton (see [`Algorithm::complete`]). The default,
    /// [`complete_default`], adds the workload inside the active phase and sizes the run from
    /// [`Spec::liveness_bound_ms`]. Override it to shape the scenario first (a topology, the
    /// parameters, the clocks) and then call [`complete_default`], or to size the run
    /// another way.
    fn complete(&self, draft: Draft, opts: &GenOptions) -> Scenario {
        complete_default(self, draft, opts)
    }
    /// States a guided campaign should reach (`sometimes` goals, e.g. "a primary paused
    /// while it serves"), beside those the promised properties bring
    /// ([`goals_for_properties`](crate::coverage::goals_for_properties)); the campaign
    /// reports which were reached and which never were. None by default.
    fn goals(&self) -> Vec<crate::coverage::Goal> {
        Vec::new()
    }
    /// The names of the promised properties' goals this algorithm can never reach, left out
    /// of its campaigns' goals and of their "never reached" list: an algorithm that reports
    /// no `cs_request` never has a requester crashed while it waits (`crashed_waiting`), and
    /// every campaign said so (stop 65's probe). A name no such goal has is refused when the
    /// goals are gathered. None by default.
    fn goals_unreachable(&self) -> Vec<&'static str> {
        Vec::new()
    }
}

/// The stream of a seed [`Spec::draw_params`] draws from (no other draw of the seed shifts).
const PARAMS_STREAM: u64 = 0x9A4A;

impl<S: Spec> Algorithm for S {
    fn draw_params(&self, seed: u64, scenario: &Scenario) -> Option<serde_json::Value> {
        let mut rng = SimRng::derive(seed, PARAMS_STREAM);
        Spec::draw_params(self, &mut rng, scenario)
            .map(|p| serde_json::to_value(p).expect("parameters serialize"))
    }
    fn info(&self) -> AlgorithmInfo {
        AlgorithmInfo {
            name: self.name(),
            summary: self.summary(),
            source: self.source(),
            variants: S::Variant::ALL
                .iter()
                .map(|&v| VariantInfo {
                    name: v.name(),
                    buggy: v.buggy(),
                    deep: v.deep(),
                    summary: v.summary(),
                })
                .collect(),
            properties: self.properties(),
            fault_model: self.fault_model(),
        }
    }

    fn run(&self, sc: &Scenario, options: RunOptions) -> Result<Outcome, ScenarioError> {
        self.run_with(sc, options, Vec::new())
    }

    fn run_with(
        &self,
        sc: &Scenario,
        options: RunOptions,
        extra: Vec<Box<dyn Checker>>,
    ) -> Result<Outcome, ScenarioError> {
        let (factory, checkers) = self.parts(sc)?;
        let own: Vec<&str> = extra.iter().map(|c| c.property()).collect();
        let mut checkers = checkers(&own)?;
        checkers.extend(extra);
        if options.require_evidence {
            checkers = checkers
                .into_iter()
                .map(sincro_checkers::needing_evidence)
                .collect();
        }
        engine::run(sc, factory, checkers, options)
    }

    fn explore(
        &self,
        sc: &Scenario,
        options: &ExploreOptions,
    ) -> Result<ExploreReport, ScenarioError> {
        let (factory, checkers) = self.parts(sc)?;
        // A complete path that holds none of the events a checker reads judged nothing: it
        // counts as not judged, as `run` says of such a scenario, never as a pass.
        let watched = || -> Result<Vec<Box<dyn Checker>>, ScenarioError> {
            let list = checkers(&[])?;
            Ok(list
                .into_iter()
                .map(sincro_checkers::needing_evidence)
                .collect())
        };
        sincro_harness::explore::explore(sc, factory, &watched, options)
    }

    fn replay_schedule(
        &self,
        sc: &Scenario,
        bounds: &Bounds,
        schedule: &[Choice],
    ) -> Result<Outcome, ScenarioError> {
        let (factory, checkers) = self.parts(sc)?;
        sincro_harness::explore::replay(sc, factory, checkers(&[])?, *bounds, schedule)
    }

    fn checkers(&self, sc: &Scenario) -> Result<Vec<Box<dyn Checker>>, ScenarioError> {
        self.checkers_with(sc, &[])
    }

    fn checkers_with(
        &self,
        sc: &Scenario,
        judged_elsewhere: &[&str],
    ) -> Result<Vec<Box<dyn Checker>>, ScenarioError> {
        let (_, checkers) = self.parts(sc)?;
        checkers(judged_elsewhere)
    }

    /// The spec's workload, squeezed into one burst for half the seeds
    /// ([`input_burst`](sincro_harness::gen::input_burst)), its inputs kept typed
    /// ([`WorkloadInput::typed`](sincro_harness::WorkloadInput::typed)): JSON is made only
    /// if the scenario is written, compared or read as JSON.
    fn workload(&self, rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<WorkloadItem> {
        let items = Spec::workload(self, rng, nodes, active_ms);
        let burst = sincro_harness::gen::input_burst(rng, active_ms);
        items
            .into_iter()
            .map(|t| WorkloadItem {
                at_ms: burst.map_or(t.at_ms, |b| b.squeeze(t.at_ms)),
                node: t.node,
                // kept typed: no JSON made unless the scenario is written or compared
                input: sincro_harness::WorkloadInput::typed(t.input),
            })
            .collect()
    }

    fn liveness_bound_ms(&self, sc: &Scenario) -> u64 {
        match self.setup(sc) {
            Ok(setup) => stretched_for_drift_ms(sc, Spec::liveness_bound_ms(self, &setup)),
            Err(_) => 0,
        }
    }

    fn nodes_min(&self) -> usize {
        Spec::nodes_min(self)
    }

    fn bug_classes(&self, variant: &str) -> Vec<FaultClass> {
        S::Variant::from_name(variant)
            .map(|v| Spec::bug_classes(self, v))
            .unwrap_or_default()
    }

    fn complete(&self, draft: Draft, opts: &GenOptions) -> Scenario {
        Spec::complete(self, draft, opts)
    }

    fn goals(&self) -> Vec<crate::coverage::Goal> {
        let mut goals = crate::coverage::goals_for_properties(&self.properties());
        for name in Spec::goals_unreachable(self) {
            // (a name no such goal has is refused by every run, `check_goals_unreachable`)
            goals.retain(|g| g.name != name);
        }
        goals.extend(Spec::goals(self));
        goals
    }
}

/// The largest liveness bound a run uses, ms (1e12): an algorithm's own bound can grow with
/// the node count and the times of the scenario; past every run's end (at most
/// [`MAX_TIME_MS`](sincro_harness::MAX_TIME_MS)) a larger one changes nothing, and in ns this
/// one keeps the checkers' sums inside `u64`.
pub const MAX_LIVENESS_BOUND_MS: u64 = 1_000_000_000_000;

/// `bound_ms`, an algorithm's liveness bound, stretched to the real time it may take on the
/// slowest clock the scenario allows (a drift down to −`clocks.rho_ppm`): a timer of d ms on
/// a clock running at 1 − ρ fires after d / (1 − ρ) ms. Where a clock may stand still
/// (ρ = 10⁶ ppm) no bound holds: [`MAX_LIVENESS_BOUND_MS`], so liveness is not judged within
/// the run. A correct bully under ρ = 990,000 ppm was blamed for not electing within its
/// usual bound. A bound a scenario gives itself (`checks.liveness_bound_ms`) is not stretched.
pub fn stretched_for_drift_ms(sc: &Scenario, bound_ms: u64) -> u64 {
    let rho = sc.clocks.rho_ppm / 1e6;
    if rho.is_nan() || rho <= 0.0 {
        return bound_ms.min(MAX_LIVENESS_BOUND_MS);
    }
    if rho >= 1.0 {
        return MAX_LIVENESS_BOUND_MS;
    }
    let stretched = (bound_ms as f64 / (1.0 - rho)).ceil();
    if stretched >= MAX_LIVENESS_BOUND_MS as f64 {
        MAX_LIVENESS_BOUND_MS
    } else {
        stretched as u64
    }
}

/// A scenario's drift bound, ppm: `clocks.rho_ppm` rounded up (validated within
/// `[0, 10^6]`, and every node's drift within it).
pub fn drift_ppm_max(sc: &Scenario) -> u32 {
    let rho = sc.clocks.rho_ppm;
    if rho.is_nan() || rho <= 0.0 {
        0
    } else {
        rho.ceil().min(1e6) as u32
    }
}

/// A timeout of `ms` on a node's own clock, sized for a real wait, lengthened for clocks that
/// run fast by up to `drift_ppm`: `ms + ⌊ms · drift⌋`. A clock fast by ρ counts a real wait
/// `w` as `w · (1 + ρ)` of its own ms, so a timeout of a round trip and 2 ms fired before a
/// 5 s round trip came back at 1000 ppm, and a live process looked dead with no fault at all.
/// A timeout with at least 1 ms of slack over the wait it covers still covers it, rounded
/// down: `ms < 1000` at 1000 ppm is unchanged.
pub fn for_fast_clocks_ms(ms: u64, drift_ppm: u32) -> u64 {
    let extra = u128::from(ms) * u128::from(drift_ppm) / 1_000_000;
    ms.saturating_add(u64::try_from(extra).unwrap_or(u64::MAX))
}

/// The real time a clock slowed by up to `drift_ppm` takes to count `ms` of its own:
/// `ms / (1 − ρ)`, rounded up (`u64::MAX` for a clock that may stop, ρ = 10^6).
pub fn on_slow_clocks_ms(ms: u64, drift_ppm: u32) -> u64 {
    if drift_ppm >= 1_000_000 {
        return u64::MAX;
    }
    let real = (u128::from(ms) * 1_000_000).div_ceil(u128::from(1_000_000 - drift_ppm));
    u64::try_from(real).unwrap_or(u64::MAX)
}

/// The usual completion of a scenario skeleton (the default of [`Algorithm::complete`] and
/// [`Spec::complete`]): `alg`'s workload inside the active phase, and a duration that leaves
/// one and a half liveness bounds after the faults stop (at most
/// [`MAX_TIME_MS`](sincro_harness::MAX_TIME_MS)). A workload whose inputs queue behind each
/// other needs more: see [`serial_drain_ms`].
pub fn complete_default<A: Algorithm + ?Sized>(
    alg: &A,
    draft: Draft,
    opts: &GenOptions,
) -> Scenario {
    complete_default_with_bound(alg, draft, opts).0
}

/// [`complete_default`], and the liveness bound it used, ms (a completion that extends the
/// run further, such as [`serial_drain_ms`]'s, need not work it out again).
pub fn complete_default_with_bound<A: Algorithm + ?Sized>(
    alg: &A,
    draft: Draft,
    opts: &GenOptions,
) -> (Scenario, u64) {
    let mut draft = draft;
    let sc = &mut draft.scenario;
    sc.workload = alg.workload(&mut draft.workload_rng, sc.nodes, opts.active_ms);
    sc.duration_ms = opts.active_ms;
    let bound = alg.liveness_bound_ms(sc);
    sc.duration_ms = sc.quiet_from_ms().max(opts.active_ms);
    extend_to_judge(sc, sc.duration_ms, bound);
    (draft.scenario, bound)
}

/// Makes `sc` last at least one and a half liveness bounds (`bound_ms`) past `from_ms`, the
/// last time something the checkers must judge may start, and at most
/// [`MAX_TIME_MS`](sincro_harness::MAX_TIME_MS).
pub fn extend_to_judge(sc: &mut Scenario, from_ms: u64, bound_ms: u64) {
    let slack = bound_ms.saturating_add(bound_ms / 2).saturating_add(1);
    let end = from_ms
        .saturating_add(slack)
        .min(sincro_harness::MAX_TIME_MS);
    sc.duration_ms = sc.duration_ms.max(end);
}

/// When a workload served one input at a time has surely been taken up, ms: the inputs, as
/// `(time, service)` pairs in ms, are served in time order, each starting at its time or when
/// the one before it is done; and since the faults may hold everything up until they stop
/// (`quiet_ms`), the inputs given by then may all wait and be served after it.
///
/// This is how long a mutual-exclusion workload takes to drain (each request waits for the
/// critical sections before it): a short active phase packs many requests together, and a run
/// that ends one and a half liveness bounds after the phase can end before the last of them is
/// even made, so it cannot be judged. A completion extends the run past it with
/// [`extend_to_judge`].
pub fn serial_drain_ms(inputs: impl IntoIterator<Item = (u64, u64)>, quiet_ms: u64) -> u64 {
    let mut inputs: Vec<(u64, u64)> = inputs.into_iter().collect();
    if inputs.is_empty() {
        return 0;
    }
    inputs.sort_unstable();
    // Starting from `quiet_ms` covers both cases: an input given before it waits for it (and
    // for the ones before it), one given after it for the ones before it only.
    inputs
        .iter()
        .fold(quiet_ms, |free_ms, &(at_ms, service_ms)| {
            at_ms.max(free_ms).saturating_add(service_ms)
        })
}

/// Every name [`Spec::goals_unreachable`] gives is a goal of the promised properties: a
/// misspelt one would leave the goal in, unsaid.
fn check_goals_unreachable<S: Spec>(spec: &S) -> Result<(), String> {
    let names = spec.goals_unreachable();
    if names.is_empty() {
        return Ok(());
    }
    let goals = crate::coverage::goals_for_properties(&spec.properties());
    match names.iter().find(|&&n| !goals.iter().any(|g| g.name == n)) {
        None => Ok(()),
        Some(n) => Err(format!(
            "{}: Spec::goals_unreachable names `{n}`, which is no goal of its properties \
             (they are: {})",
            spec.name(),
            goals
                .iter()
                .map(|g| g.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// The shared first steps of a run: variant, parameters, [`Spec::prepare`].
trait SetupExt: Spec {
    fn setup<'a>(&self, sc: &'a Scenario) -> Result<Setup<'a, Self>, ScenarioError> {
        let variant = Self::Variant::ALL
            .iter()
            .copied()
            .find(|v| v.name() == sc.variant)
            .ok_or_else(|| {
                let known: Vec<_> = Self::Variant::ALL.iter().map(|v| v.name()).collect();
                ScenarioError(crate::registry::unknown_variant(
                    &sc.variant,
                    self.name(),
                    &known,
                ))
            })?;
        // Below the spec's own least, a run is refused whatever `prepare` checks: a shrinker
        // that removed nodes down to 1 turned one bug into another (stop 64: a node's
        // `100 / (nodes - 1)` divided by zero, and the shrunk failure named that panic).
        if sc.nodes < Spec::nodes_min(self) {
            return Err(ScenarioError(format!(
                "nodes = {}: {} needs at least {} nodes (its Spec::nodes_min)",
                sc.nodes,
                self.name(),
                Spec::nodes_min(self)
            )));
        }
        check_goals_unreachable(self).map_err(ScenarioError)?;
        let params: Self::Params = parse_params(sc)?;
        check_params_read(sc, &params)?;
        check_links(self, sc).map_err(ScenarioError)?;
        let mut setup = Setup {
            scenario: sc,
            variant,
            params,
        };
        self.prepare(&mut setup).map_err(ScenarioError)?;
        Ok(setup)
    }
}

impl<S: Spec> SetupExt for S {}

/// The node factory and a source of fresh checkers for a scenario: what a run and an
/// exploration (which needs fresh checkers for every execution) share.
type Parts<'a, N> = (
    Factory<N>,
    Box<dyn Fn(&[&str]) -> Result<Vec<Box<dyn Checker>>, ScenarioError> + 'a>,
);

trait PartsExt: Spec {
    fn parts<'a>(&'a self, sc: &'a Scenario) -> Result<Parts<'a, Self::Node>, ScenarioError> {
        let setup = self.setup(sc)?;
        let bound = sc
            .checks
            .liveness_bound_ms
            .unwrap_or_else(|| stretched_for_drift_ms(sc, self.liveness_bound_ms(&setup)))
            .min(MAX_LIVENESS_BOUND_MS);
        let (spec, variant, params) = (self.clone(), setup.variant, setup.params.clone());
        let factory: Factory<Self::Node> = Rc::new(move |id| spec.node(variant, &params, id));
        let info = self.info();
        let checkers = Box::new(move |judged_elsewhere: &[&str]| {
            crate::registry::checkers_with(&info, sc, bound, judged_elsewhere, |p| {
                let built = self.checker(p, &setup, bound).map_err(ScenarioError)?;
                match built.as_ref().map(|c| c.property()) {
                    // Its violations carry its own name: under another, `expect_violation`
                    // of the listed name never matched them (stop 64).
                    Some(other) if other != p => Err(ScenarioError(format!(
                        "{}: Spec::checker(\"{p}\") built a checker whose property() is \
                         `{other}`: its verdicts would carry that name, not `{p}`; return \
                         `{p}` from its property() (or list `{other}` in Spec::properties)",
                        info.name
                    ))),
                    _ => Ok(built),
                }
            })
        });
        Ok((factory, checkers))
    }
}

impl<S: Spec> PartsExt for S {}

/// Parses a scenario's `params` (null: the defaults); the error names the algorithm.
pub fn parse_params<T: DeserializeOwned + Default>(sc: &Scenario) -> Result<T, ScenarioError> {
    if sc.params.is_null() {
        return Ok(T::default());
    }
    // serde reads a struct from an array by position (`[1, 2]` set the first two fields):
    // params are named, always
    if !sc.params.is_object() {
        return Err(ScenarioError(format!(
            "params are not valid for {}: expected an object of named parameters, got {}",
            sc.algorithm, sc.params
        )));
    }
    T::deserialize(&sc.params)
        .map_err(|e| ScenarioError(format!("params are not valid for {}: {e}", sc.algorithm)))
}

/// Refuses a key of `sc.params` that `params` (parsed from it) did not read. serde skips an
/// unknown field unless the type denies them, so a user's `Params` without
/// `#[serde(deny_unknown_fields)]` ran a misspelt parameter with its default (stop 67's probe:
/// `{"cs_ms": 100000, "bogus_param": 3}` was accepted). A key is unread when the parameters
/// serialize without it and parse to the same with a value of another shape in its place: a
/// field read through an `alias`, or skipped when serialized, fails to parse or changes.
pub fn check_params_read<T: Serialize + DeserializeOwned>(
    sc: &Scenario,
    params: &T,
) -> Result<(), ScenarioError> {
    let Some(given) = sc.params.as_object() else {
        return Ok(());
    };
    let Ok(read) = serde_json::to_value(params) else {
        return Ok(());
    };
    let written = read.as_object();
    let unread: Vec<&String> = given
        .keys()
        .filter(|k| !written.is_some_and(|w| w.contains_key(*k)))
        .filter(|k| {
            // Read, a value of another shape fails to parse or changes the parameters;
            // ignored, it does neither.
            let mut probe = given.clone();
            probe.insert(
                (*k).clone(),
                serde_json::json!([[["sincro: is this key read?"]]]),
            );
            T::deserialize(&serde_json::Value::Object(probe))
                .ok()
                .and_then(|t| serde_json::to_value(t).ok())
                .is_some_and(|v| v == read)
        })
        .collect();
    if unread.is_empty() {
        return Ok(());
    }
    let known = written.map_or_else(String::new, |w| {
        let names: Vec<&str> = w.keys().map(String::as_str).collect();
        if names.is_empty() {
            " (it has none)".to_string()
        } else {
            format!(" (its parameters: {})", names.join(", "))
        }
    });
    let names: Vec<String> = unread.iter().map(|k| format!("`{k}`")).collect();
    Err(ScenarioError(format!(
        "params are not valid for {}: unknown parameter{} {}{known}",
        sc.algorithm,
        if unread.len() == 1 { "" } else { "s" },
        names.join(", ")
    )))
}

/// The largest message latency a scenario can produce, ms: its latency distribution, its
/// static link overrides and any latency a fault sets later (delay spikes included).
pub fn max_latency_ms(sc: &Scenario) -> u64 {
    let faults = sc.faults.iter().filter_map(|f| match &f.fault {
        sincro_harness::Fault::SetLinks(o) => o.latency.as_ref().map(|l| l.max_ns()),
        _ => None,
    });
    faults
        .chain(std::iter::once(usual_latency_ns(sc)))
        .max()
        .unwrap_or(0)
        .div_ceil(sincro_harness::NS_PER_MS)
}

/// The usual latency bound, ms: the latency distribution and static link overrides, without
/// the spikes a fault plan may add. Timeouts that decide "lost" are sized from it.
pub fn usual_latency_ms(sc: &Scenario) -> u64 {
    usual_latency_ns(sc).div_ceil(sincro_harness::NS_PER_MS)
}

fn usual_latency_ns(sc: &Scenario) -> u64 {
    let over = sc
        .network
        .links
        .iter()
        .filter_map(|l| l.latency.as_ref())
        .map(|l| l.max_ns());
    std::iter::once(sc.network.latency.max_ns())
        .chain(over)
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    /// The README names every method `Spec` and `Algorithm` share (a user who wraps a spec
    /// with both traits in scope must call them as `Spec::name(&spec)`): it named three of
    /// seven (stop 73's probe).
    #[test]
    fn the_readme_names_every_method_spec_and_algorithm_share() {
        let dir = env!("CARGO_MANIFEST_DIR");
        let read = |p: &str| std::fs::read_to_string(format!("{dir}/{p}")).unwrap();
        let trait_fns = |src: &str, name: &str| -> std::collections::BTreeSet<String> {
            let start = src.find(&format!("pub trait {name}")).unwrap();
            let body = &src[start..];
            let mut depth = 0;
            let mut end = body.len();
            for (i, c) in body.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = i;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            body[..end]
                .split("\n    fn ")
                .skip(1)
                .map(|f| f.split(['(', '<']).next().unwrap().to_string())
                .collect()
        };
        let spec = trait_fns(&read("src/spec.rs"), "Spec");
        let alg = trait_fns(&read("src/registry.rs"), "Algorithm");
        let shared: Vec<&String> = spec.intersection(&alg).collect();
        assert!(shared.len() >= 7, "{shared:?}");
        let readme = read("../README.md");
        let start = readme
            .find("Both traits have")
            .expect("the README's sentence on the shared methods");
        let line = &readme[start..];
        let line = &line[..line.find("in scope").expect("its end")];
        for f in shared {
            assert!(
                line.contains(&format!("`{f}`")),
                "the README does not name `{f}`"
            );
        }
    }
    use super::serial_drain_ms;
    use sincro_harness::net::Topology;

    /// A user's parameters without `deny_unknown_fields`: an unread key is refused, naming it
    /// and the parameters there are; an alias, a field skipped when serialized, and defaults
    /// are read, not refused.
    #[test]
    fn a_params_key_the_parameters_do_not_read_is_refused() {
        #[derive(Default, serde::Serialize, serde::Deserialize)]
        #[serde(default)]
        struct P {
            #[serde(alias = "hold")]
            hold_ms: u64,
            #[serde(skip_serializing_if = "String::is_empty")]
            tag: String,
        }
        let check = |params: serde_json::Value| {
            let sc: sincro_harness::Scenario = serde_json::from_value(serde_json::json!({
                "algorithm": "user.algorithm", "nodes": 3, "seed": 1, "duration_ms": 10,
                "params": params,
            }))
            .unwrap();
            let p: P = super::parse_params(&sc).map_err(|e| e.0)?;
            super::check_params_read(&sc, &p).map_err(|e| e.0)
        };
        let e = check(serde_json::json!({"hold_ms": 5, "bogus_param": 3})).unwrap_err();
        assert_eq!(
            e,
            "params are not valid for user.algorithm: unknown parameter `bogus_param` (its \
             parameters: hold_ms)"
        );
        let e = check(serde_json::json!({"hold_sm": 5, "x": 1})).unwrap_err();
        assert!(e.contains("unknown parameters `hold_sm`, `x`"), "{e}");
        for fine in [
            serde_json::json!({}),
            serde_json::json!({"hold": 5}),
            serde_json::json!({"hold": 0}),
            serde_json::json!({"hold_ms": 5, "tag": "a"}),
            serde_json::json!({"tag": ""}),
            serde_json::Value::Null,
        ] {
            assert_eq!(check(fine.clone()), Ok(()), "{fine}");
        }
    }

    /// A generated scenario of `name` (correct, 4 nodes) on `topology`: run, or the error.
    fn on(name: &str, topology: Topology) -> Result<(), String> {
        let alg = crate::registry::find(name).unwrap();
        let opts = sincro_harness::gen::GenOptions {
            nodes_min: 4,
            nodes_max: 4,
            ..Default::default()
        };
        let mut sc = alg.generate("correct", 3, &opts);
        sc.network.topology = topology;
        alg.run(&sc, Default::default())
            .map(|_| ())
            .map_err(|e| e.0)
    }

    #[test]
    fn a_liveness_bound_stretches_with_the_slowest_clock_allowed() {
        use super::{stretched_for_drift_ms, MAX_LIVENESS_BOUND_MS};
        let mut sc = crate::registry::find("election.bully").unwrap().generate(
            "correct",
            1,
            &Default::default(),
        );
        sc.clocks.rho_ppm = 0.0;
        assert_eq!(stretched_for_drift_ms(&sc, 500), 500);
        sc.clocks.rho_ppm = 1000.0;
        assert_eq!(
            stretched_for_drift_ms(&sc, 500),
            501,
            "500 / 0.999, rounded up"
        );
        sc.clocks.rho_ppm = 990_000.0;
        assert_eq!(stretched_for_drift_ms(&sc, 500), 50_000);
        sc.clocks.rho_ppm = 1e6;
        assert_eq!(stretched_for_drift_ms(&sc, 500), MAX_LIVENESS_BOUND_MS);
        // a correct bully whose clocks may run at 1 % speed is not blamed within its usual
        // bound (it was: leader_agreement at 529 ms)
        let alg = crate::registry::find("election.bully").unwrap();
        let mut sc = alg.generate("correct", 619, &Default::default());
        sc.clocks.rho_ppm = 990_000.0;
        sc.clocks.nodes = (0..sc.nodes)
            .map(|node| sincro_harness::scenario::NodeClock {
                node,
                offset_ms: 0.0,
                drift_ppm: -990_000.0,
            })
            .collect();
        let out = alg.run(&sc, Default::default()).unwrap();
        assert!(
            !matches!(out.verdict, sincro_harness::Verdict::Violation(_)),
            "{}",
            out.verdict
        );
    }

    #[test]
    fn a_topology_missing_a_link_the_algorithm_sends_over_is_refused() {
        // Ricart-Agrawala asks every node: a ring of 4 lacks 0 – 2 (and 1 – 3)
        let err = on("mutex.ricart-agrawala", Topology::Ring).unwrap_err();
        assert!(err.contains("mutex.ricart-agrawala"), "{err}");
        assert!(err.contains("no link 0 – 2"), "{err}");
        // every pair listed as a graph is complete
        let all = (0..4)
            .flat_map(|a| (a + 1..4).map(move |b| [a, b]))
            .collect();
        on("mutex.ricart-agrawala", Topology::Graph { edges: all }).unwrap();
        on("mutex.ricart-agrawala", Topology::Complete).unwrap();
        // one edge short of complete: the missing pair is named
        let edges = vec![[0, 1], [0, 2], [0, 3], [1, 2], [2, 3]];
        let err = on("election.bully", Topology::Graph { edges }).unwrap_err();
        assert!(err.contains("no link 1 – 3"), "{err}");
        // a ring election needs only the ring's links
        on("election.chang-roberts", Topology::Ring).unwrap();
    }

    #[test]
    fn a_serial_workload_drains_one_input_after_another() {
        // nothing to drain
        assert_eq!(serial_drain_ms([], 500), 0);
        // spaced out: the last input's time plus its service
        assert_eq!(serial_drain_ms([(0, 10), (100, 10)], 0), 110);
        // packed (and given out of order): each waits for the ones before it
        assert_eq!(serial_drain_ms([(2, 10), (0, 10), (1, 10)], 0), 30);
        // faults until 300 ms may hold up every input given by then
        assert_eq!(serial_drain_ms([(0, 10), (100, 10)], 300), 320);
        // an input after the faults stop queues behind those held up
        assert_eq!(serial_drain_ms([(0, 10), (305, 10)], 300), 320);
        assert_eq!(serial_drain_ms([(0, 10), (400, 10)], 300), 410);
        // huge values saturate rather than wrap
        assert_eq!(serial_drain_ms([(1, u64::MAX), (2, 5)], 0), u64::MAX);
    }
}
