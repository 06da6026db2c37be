//! `sincro show`, `sincro check` and `sincro diff`: reading traces.
//!
//! - `show` renders a scenario's run (with its verdict) or a recorded trace as a text
//!   timeline, a Mermaid sequence diagram, a self-contained HTML space-time diagram, or JSON
//!   Lines.
//! - `check` judges a trace recorded elsewhere, offline, with the same checkers the engines
//!   run online.
//! - `diff` finds the first event at which two traces (or two scenario runs) part ways.
//!
//! An input is a trace when its name ends in `.jsonl` or its first line is the trace header
//! (`{"sincro_trace": 1, ...}`); anything else is read as a scenario and run.

use crate::exit;
use sincro_harness::check::judge_trace;
use sincro_harness::diff::first_divergence;
use sincro_harness::engine::RunOptions;
use sincro_harness::trace::{Event, EventKind, MAX_TRACE_TIME_NS};
use sincro_harness::view::{self, EventClass, Filter};
use sincro_harness::{render, EngineKind, Fault, Scenario, Trace, Verdict, NS_PER_MS};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Output formats of `sincro show`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Text timeline, one line per event (as the `replay` command prints it).
    Text,
    /// Mermaid `sequenceDiagram`.
    Mermaid,
    /// Self-contained HTML page with an SVG space-time diagram.
    Html,
    /// The trace itself, as JSON Lines.
    Jsonl,
}

/// Engines a scenario input can be run on.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// Sincro's discrete-event engine.
    Native,
    /// Every node a turmoil host over simulated UDP.
    Turmoil,
    /// Every node a madsim node over madsim's network (builds with RUSTFLAGS=\"--cfg madsim\").
    Madsim,
}

impl From<Engine> for EngineKind {
    fn from(e: Engine) -> Self {
        match e {
            Engine::Native => EngineKind::Native,
            Engine::Turmoil => EngineKind::Turmoil,
            Engine::Madsim => EngineKind::Madsim,
        }
    }
}

/// Kinds of events `--only` keeps.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Only {
    /// Observations the algorithm reports (entered the critical section, leader is X, ...).
    Observations,
    /// Faults of the plan (partitions, crashes, pauses, clock faults, link changes).
    Faults,
    /// Sends, deliveries and drops.
    Messages,
    /// Timers firing.
    Timers,
    /// Workload inputs.
    Inputs,
    /// Clock adjustments.
    Clocks,
    /// Starts, restarts and panics.
    Lifecycle,
}

impl From<Only> for EventClass {
    fn from(o: Only) -> Self {
        match o {
            Only::Observations => EventClass::Observations,
            Only::Faults => EventClass::Faults,
            Only::Messages => EventClass::Messages,
            Only::Timers => EventClass::Timers,
            Only::Inputs => EventClass::Inputs,
            Only::Clocks => EventClass::Clocks,
            Only::Lifecycle => EventClass::Lifecycle,
        }
    }
}

/// Which events a rendered trace shows (`show` and `replay`). By default a trace of more than
/// 150 events with a violation shows the violating events, their causal past and every fault,
/// up to the violation, and says how many events it hid.
#[derive(clap::Args, Clone, Debug, Default, PartialEq)]
pub struct ViewArgs {
    /// Show every event, not only the violation's causal past (the default for a long
    /// failing trace).
    #[arg(long)]
    pub all: bool,
    /// Only events at these nodes (comma-separated ids), their messages to and from other
    /// nodes, and the faults that concern them or the whole network.
    #[arg(long, value_delimiter = ',', value_name = "N")]
    pub node: Vec<usize>,
    /// Only events at or after this global time, ms.
    #[arg(long, value_name = "MS")]
    pub from_ms: Option<f64>,
    /// Only events at or before this global time, ms. A failure's view filtered by
    /// `--node`, `--only` or `--from-ms` ends at the verdict without it (`--all` too shows
    /// what follows); a `--from-ms` past the verdict shows what follows, and says so.
    #[arg(long, value_name = "MS")]
    pub to_ms: Option<f64>,
    /// Only these kinds of events, comma-separated (e.g. `observations,faults`). The
    /// violating events are always shown.
    #[arg(long, value_enum, value_delimiter = ',')]
    pub only: Vec<Only>,
}

impl ViewArgs {
    /// The filter these options ask for; an error names a time that is not a time.
    pub fn filter(&self) -> Result<Filter, String> {
        // A window's bounds are inclusive: rounded inward, so `--to-ms 63.9999999` keeps no
        // event at 64 ms (rounding to the nearest ns took them in).
        let time = |flag: &str, ms: Option<f64>, up: bool| -> Result<Option<u64>, String> {
            match ms {
                None => Ok(None),
                Some(v) if v.is_finite() && v >= 0.0 && v * 1e6 <= MAX_TRACE_TIME_NS as f64 => {
                    // A value that is a whole ns but for the decimal's binary error (0.1 ms
                    // is 100000.00000000001 ns) is that ns.
                    let ns = v * 1e6;
                    let near = ns.round();
                    let whole = if (ns - near).abs() < 1e-3 {
                        near
                    } else if up {
                        ns.ceil()
                    } else {
                        ns.floor()
                    };
                    Ok(Some(whole as u64))
                }
                // As typed, near enough: `1e300` (`{v:?}`), not 301 digits; `99999999999999`
                // (`{v}`), not `99999999999999.0`.
                Some(v) => Err(format!(
                    "{flag} {}: a time in ms from 0 to {} (the longest run)",
                    if v.abs() < 1e16 {
                        v.to_string()
                    } else {
                        format!("{v:?}")
                    },
                    MAX_TRACE_TIME_NS / NS_PER_MS
                )),
            }
        };
        let from_ns = time("--from-ms", self.from_ms, true)?;
        let to_ns = time("--to-ms", self.to_ms, false)?;
        if let (Some(a), Some(b), Some(from), Some(to)) = (from_ns, to_ns, self.from_ms, self.to_ms)
        {
            // Judged on the values typed: rounded inward, `5.0000004` to `5.0000006` is a
            // window in the right order that holds no whole ns (stop 72's probe).
            if from > to {
                return Err(format!(
                    "--from-ms {from} is after --to-ms {to}: the time window is reversed"
                ));
            }
            if a > b {
                return Err(format!(
                    "--from-ms {from} to --to-ms {to} holds no whole nanosecond, and a trace's \
                     times are whole nanoseconds: widen the window"
                ));
            }
        }
        let mut only: Vec<EventClass> = self.only.iter().map(|&o| o.into()).collect();
        only.sort_unstable();
        only.dedup();
        let mut nodes = self.node.clone();
        nodes.sort_unstable();
        nodes.dedup();
        Ok(Filter {
            all: self.all,
            only,
            nodes,
            from_ns,
            to_ns,
        })
    }
}

/// The events of `trace` to render under `args`: an error names a bad time, a node the trace
/// does not have, or a reversed window (bad input).
pub fn selection(
    trace: &Trace,
    verdict: Option<&Verdict>,
    args: &ViewArgs,
) -> Result<view::Selection, String> {
    let filter = args.filter()?;
    view::select(trace, verdict, &filter).map_err(|e| match e.strip_prefix("node ") {
        Some(rest) => format!("--node {rest}"),
        None => e,
    })
}

/// Whether some link of the run still loses messages when the trace ends, as
/// [`Scenario::loses_at_the_end`] says of a scenario: a `set_links` loss of the trace's faults
/// still in effect, or a message lost after the last fault (the network's own loss, which a
/// trace does not record otherwise). Liveness cannot be judged "after the faults stopped"
/// then (a loss set for good was blamed from its own time on, where the scenario's run said
/// it could not judge).
fn loses_at_the_end(trace: &Trace, nodes: usize) -> Result<bool, String> {
    let mut last_fault_ns = None;
    let mut faults = Vec::new();
    let mut lost_after = false;
    for e in trace.events() {
        match &e.kind {
            EventKind::Fault { fault } => {
                last_fault_ns = Some(e.t_ns);
                lost_after = false;
                faults.push(sincro_harness::TimedFault {
                    at_ms: e.t_ns / NS_PER_MS,
                    fault: fault.clone(),
                });
            }
            EventKind::Drop {
                reason: sincro_harness::net::DropReason::Loss,
                ..
            } if last_fault_ns.is_none_or(|t| e.t_ns > t) => lost_after = true,
            _ => {}
        }
    }
    if lost_after {
        return Ok(true);
    }
    let mut plan: Scenario = serde_json::from_value(serde_json::json!({
        "algorithm": "offline",
        "nodes": nodes.max(1),
        "seed": 0,
        "duration_ms": 1,
    }))
    .map_err(|e| format!("internal: offline scenario: {e}"))?;
    plan.faults = faults;
    Ok(plan.loses_at_the_end())
}

/// How an offline judgement reads a trace (the parts a scenario would otherwise give).
#[derive(clap::Args, Clone, Debug, Default, PartialEq, Eq)]
pub struct JudgeArgs {
    /// Number of nodes, for a trace whose header says 0 (otherwise it must be the header's).
    #[arg(long)]
    pub nodes: Option<usize>,
    /// Liveness is judged from this global time, ms (default: the trace's last fault).
    #[arg(long)]
    pub quiet_from_ms: Option<u64>,
    /// Liveness bound, ms after the quiet time (required when checking a property judged
    /// against a bound: liveness, no_deadlock, deadlock_completeness, leader_agreement,
    /// election_termination, leader_validity, replica_agreement).
    #[arg(long)]
    pub liveness_bound_ms: Option<u64>,
    /// The run ended at this global time, ms (default: the trace's last event). Not with
    /// --scenario, which gives it: the later of the trace's last event and the scenario's
    /// duration, or where the trace stops (a violation, a cut, a panic).
    #[arg(long)]
    pub end_ms: Option<u64>,
    /// The scenario the trace was recorded from: its algorithm builds the checkers its runs
    /// use (its own ranking for leader_validity, its settle time for leader_stability, its
    /// liveness bound, node count and quiet time), so the verdict is the run's (a trace
    /// with none of the events a property reads is COULD NOT JUDGE, as the run is; a trace
    /// that ends in a cut or a panic is judged only up to it). Needed for
    /// leader_validity and leader_stability, which every election algorithm judges its own
    /// way; not with --nodes, --quiet-from-ms or --end-ms, which it gives.
    #[arg(long)]
    pub scenario: Option<PathBuf>,
    /// Set by `show` when the scenario is its own input, judged with `--check`: errors then
    /// name `--check` and no `--scenario` (neither `--properties` nor `--scenario` was given).
    #[arg(skip)]
    pub scenario_is_input: bool,
    /// Set by `show`: the properties come from its `--check` (errors named `check`'s
    /// `--properties`, an option `show` does not have).
    #[arg(skip)]
    pub from_show: bool,
}

/// Whether algorithm `name` builds checkers that judge a trace (Ω judges its own state
/// during a run: it does not), asked of a scenario of its first variant.
fn judges_from_a_trace(registry: &crate::algorithms::Registry, name: &str) -> bool {
    let Ok(alg) = registry.find(name) else {
        return false;
    };
    let info = alg.info();
    let Some(variant) = info.variants.first() else {
        return false;
    };
    let sc = alg.generate(variant.name, 0, &sincro_harness::gen::GenOptions::default());
    alg.checkers(&sc).is_ok()
}

/// Properties whose judgement every algorithm that promises them sets its own way (the
/// ranking a valid leader wins by, the time a new leader may take to settle): judged offline
/// only with the scenario the trace came from (`--scenario`). A generic rule (the highest
/// node index wins, no settle time) called correct runs of Chang–Roberts with its `ids`,
/// of ad hoc election with its capacities, violations.
const JUDGED_BY_THE_ALGORITHM: [&str; 2] = ["leader_validity", "leader_stability"];

/// Properties whose verdict moves with the node count itself, not only with the nodes a
/// trace's events name: `bounded_waiting` allows n − 1 overtakes, `leader_agreement` waits
/// for every node of `0..n` to name the leader, `election_termination` takes a leader only in
/// `0..n`.
const READ_THE_NODE_COUNT: [&str; 3] = [
    "bounded_waiting",
    "leader_agreement",
    "election_termination",
];

/// The node count an offline judgement of `properties` uses must be confirmed by the trace
/// when one of them reads it ([`READ_THE_NODE_COUNT`]). A trace that records starts names
/// every node ([`Trace::validate`] checks it); one that records none must name each node below
/// the count in some event, or the verdict rests on the header's (or `--nodes`') unchecked
/// claim: stop 74's probe found a trace of three nodes overtaking a request twice pass
/// `bounded_waiting` under a header of 10 nodes (9 overtakes allowed).
fn check_count_confirmed(trace: &Trace, nodes: usize, properties: &[String]) -> Result<(), String> {
    let Some(p) = properties
        .iter()
        .find(|p| READ_THE_NODE_COUNT.contains(&p.as_str()))
    else {
        return Ok(());
    };
    let mut named = vec![false; nodes];
    for v in trace.events().iter().filter_map(|e| e.node) {
        if let Some(seen) = named.get_mut(v) {
            *seen = true;
        }
    }
    match named.iter().position(|&seen| !seen) {
        None => Ok(()),
        Some(v) => Err(format!(
            "`{p}` depends on the node count ({nodes}), and node {v} has no event in the trace: \
             the count is unconfirmed (a trace that records each node's `start` confirms it; \
             or give --scenario, the scenario the trace was recorded from)"
        )),
    }
}

/// Options of `sincro show`.
#[derive(clap::Args, Clone, Debug)]
pub struct ShowArgs {
    /// A scenario JSON file (run, then rendered with its verdict) or a trace JSON Lines file.
    pub input: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Write to this file instead of standard output (parent folders are created).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Run a scenario input on this engine instead of the one it names.
    #[arg(long, value_enum)]
    pub engine: Option<Engine>,
    /// Judge the trace offline against these properties (comma-separated) and render with
    /// that verdict (a scenario input's own verdict is replaced).
    #[arg(long, value_delimiter = ',', value_parser = crate::list_item)]
    pub check: Vec<String>,
    /// Title of the HTML page (default: from the scenario or the file name).
    #[arg(long)]
    pub title: Option<String>,
    /// How to judge (with --check).
    #[command(flatten)]
    pub judge: JudgeArgs,
    /// Which events to show.
    #[command(flatten)]
    pub view: ViewArgs,
}

/// Options of `sincro check`.
#[derive(clap::Args, Clone, Debug)]
pub struct CheckArgs {
    /// A trace JSON Lines file recorded by Sincro or elsewhere.
    pub trace: PathBuf,
    /// Properties to judge, comma-separated (e.g. `mutual_exclusion,liveness`); with
    /// --scenario, by default those its run judges (its `checks.properties`, else every one
    /// its algorithm promises).
    #[arg(
        long,
        value_delimiter = ',',
        required_unless_present = "scenario",
        value_parser = crate::list_item
    )]
    pub properties: Vec<String>,
    /// How to judge.
    #[command(flatten)]
    pub judge: JudgeArgs,
}

/// Options of `sincro diff`.
#[derive(clap::Args, Clone, Debug)]
pub struct DiffArgs {
    /// First trace (JSON Lines), or a scenario file to run.
    pub a: PathBuf,
    /// Second trace (JSON Lines), or a scenario file to run.
    pub b: PathBuf,
    /// Events of context shown before and after the divergence.
    #[arg(long, default_value_t = 5)]
    pub context: usize,
    /// Run scenario inputs on this engine instead of the one they name.
    #[arg(long, value_enum)]
    pub engine: Option<Engine>,
    /// Number of nodes, for traces whose header says 0 (otherwise it must be the header's),
    /// as `check` and `show` take it.
    #[arg(long)]
    pub nodes: Option<usize>,
}

/// A loaded input: a scenario that was run, or a recorded trace.
#[derive(Debug)]
pub enum Input {
    /// A scenario, its trace and its verdict.
    Run {
        /// The scenario (with the engine it ran on).
        scenario: Box<Scenario>,
        /// The recorded trace.
        trace: Trace,
        /// The run's verdict.
        verdict: Verdict,
    },
    /// A trace read from JSON Lines.
    Trace(Trace),
}

impl Input {
    /// The trace.
    pub fn trace(&self) -> &Trace {
        match self {
            Input::Run { trace, .. } | Input::Trace(trace) => trace,
        }
    }
}

/// True when `text` (the content of `path`) is a JSON Lines trace rather than a scenario.
fn is_trace(path: &Path, text: &str) -> bool {
    if path.extension().is_some_and(|e| e == "jsonl") {
        return true;
    }
    // The header is a short line: a scenario on one long line is not parsed here (up to
    // 1 GiB of it, into a JSON tree many times its size).
    text.lines()
        .find(|l| !l.trim().is_empty())
        .filter(|l| l.len() <= 4096)
        .and_then(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .is_some_and(|v| v.get("sincro_trace").is_some())
}

/// Largest trace or scenario file `show`, `diff` and `check` read: a recorded trace may exceed a
/// scenario file's limit; Sincro never writes a longer one ([`Trace::write_jsonl`]).
const MAX_INPUT_BYTES: u64 = crate::harness::trace::MAX_TRACE_FILE_BYTES;

/// Reads `path` as a trace or as a scenario (run with trace recording, on `engine` if given).
pub fn load(path: &Path, engine: Option<Engine>) -> Result<Input, String> {
    load_with_nodes(path, engine, None)
}

/// [`load`], with the node count of a trace whose header says 0 (`--nodes`; a count the
/// header contradicts is refused).
pub fn load_with_nodes(
    path: &Path,
    engine: Option<Engine>,
    nodes: Option<usize>,
) -> Result<Input, String> {
    let text = crate::harness::scenario::read_limited(path, MAX_INPUT_BYTES)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if is_trace(path, &text) {
        let mut trace = Trace::read_jsonl(text.as_bytes())
            .map_err(|e| format!("{}: not a trace: {e}", path.display()))?;
        match nodes {
            Some(n) if trace.nodes > 0 && n != trace.nodes => {
                return Err(format!(
                    "{}: --nodes {n} contradicts the trace's header ({} nodes); give --nodes \
                     only for a header of 0 nodes",
                    path.display(),
                    trace.nodes
                ))
            }
            Some(n) => {
                trace.nodes = n;
                // the count is --nodes', not the header's: said so
                trace.validate_with_nodes(n).map_err(|e| {
                    format!("{}: not a valid trace of --nodes {n}: {e}", path.display())
                })?;
                return Ok(Input::Trace(trace));
            }
            None => {}
        }
        trace
            .validate()
            .map_err(|e| format!("{}: not a valid trace: {e}", path.display()))?;
        return Ok(Input::Trace(trace));
    }
    // A trace may take up to 1 GiB; a scenario no more than `run` reads.
    if text.len() as u64 > crate::harness::scenario::MAX_SCENARIO_BYTES {
        return Err(format!(
            "cannot read {}: a scenario larger than the limit of {} bytes",
            path.display(),
            crate::harness::scenario::MAX_SCENARIO_BYTES
        ));
    }
    let mut scenario =
        Scenario::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    // A scenario names its node count: --nodes is for a trace whose header does not.
    if let Some(n) = nodes.filter(|&n| n != scenario.nodes) {
        return Err(format!(
            "{}: --nodes {n} contradicts the scenario ({} nodes); give --nodes only for a \
             trace whose header says 0",
            path.display(),
            scenario.nodes
        ));
    }
    if let Some(e) = engine {
        scenario.engine = e.into();
    }
    let mut outcome = sincro_algorithms::run_scenario(&scenario, RunOptions::new(true))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    // A pass on nothing is none, as `run` says of the same scenario.
    crate::cli::unless_nothing_judged(&scenario, &mut outcome)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let trace = outcome
        .trace
        .ok_or_else(|| format!("{}: the run recorded no trace", path.display()))?;
    Ok(Input::Run {
        scenario: Box::new(scenario),
        trace,
        verdict: outcome.verdict,
    })
}

/// Rejects a trace that no run could have produced ([`Trace::validate_with_nodes`]: node
/// count, ids, time order, sends before their deliveries, node ids in `0..nodes`): a verdict
/// over it would mean nothing.
fn check_nodes(trace: &Trace, nodes: usize) -> Result<(), String> {
    if nodes == 0 {
        return Err("the trace has 0 nodes (give --nodes)".into());
    }
    // the header's count is named as the header's
    if nodes == trace.nodes {
        trace.validate()
    } else {
        trace.validate_with_nodes(nodes)
    }
    .map_err(|e| format!("not a valid trace: {e}"))
}

/// What an offline judgement used, for the report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Judged {
    /// Nodes.
    pub nodes: usize,
    /// Liveness judged from this global time, ms.
    pub quiet_from_ms: u64,
    /// Liveness bound, ms (when liveness was checked).
    pub liveness_bound_ms: Option<u64>,
    /// End of the run, ns.
    pub end_ns: u64,
    /// The properties judged (those asked for, or with a scenario and none asked for, the
    /// scenario's).
    pub properties: Vec<String>,
}

/// Judges `trace` offline against `properties` with the installed registry's checkers
/// ([`Registry::checker`](crate::algorithms::Registry::checker): a user's, then the built-in
/// ones) and
/// [`judge_trace`]: the verdict ([`Verdict::Pass`], [`Verdict::Violation`] or [`Verdict::Unjudged`]) and what it
/// assumed. Errors name an unknown property (listing the known ones) or a missing bound.
pub fn judge(
    trace: &Trace,
    properties: &[String],
    args: &JudgeArgs,
) -> Result<(Verdict, Judged), String> {
    let registry = crate::algorithms::Registry::current();
    let known = registry.properties();
    if properties.is_empty() && args.scenario.is_none() {
        return Err(format!(
            "no property to check; known properties: {}",
            known.join(", ")
        ));
    }
    // `--properties a,` or `,`: an empty item, said as such (it read "unknown property ``")
    if properties.iter().any(|p| p.trim().is_empty()) {
        return Err(format!(
            "--properties has an empty item: give property names separated by commas; known \
             properties: {}",
            known.join(", ")
        ));
    }
    // as a scenario's `checks.properties` refuses one named twice
    if let Some((_, p)) = properties
        .iter()
        .enumerate()
        .find(|(i, p)| properties[..*i].contains(p))
    {
        return Err(format!("property `{p}` is named twice"));
    }
    // Before the cut's instant is trimmed: a second cut there was trimmed with it, and the
    // verdict followed whichever came last.
    if let Some(e) = trace
        .events()
        .iter()
        .rev()
        .skip(1)
        .find(|e| matches!(e.kind, EventKind::Cut { .. }))
    {
        return Err(format!(
            "not a valid trace: event {} (cut) must be the trace's last event: it marks where \
             the trace stops",
            e.id
        ));
    }
    let trimmed;
    let trace = match without_cut_instant(trace) {
        Some(t) => {
            trimmed = t;
            &trimmed
        }
        None => trace,
    };
    // With the scenario, its algorithm builds the checkers, and names a property it does not
    // promise (`bounded_skew` is a clock algorithm's, with its bound).
    if let Some(path) = &args.scenario {
        return judge_with_scenario(trace, properties, args, path);
    }
    for p in properties {
        if !known.contains(&p.as_str()) {
            // A property of an algorithm's own (a user's checker from `Spec::checker`, a
            // clock algorithm's bounded_skew with its bound, Ω's registers): its algorithm
            // builds the checker from the scenario, if the property can be judged from a
            // trace at all; say so rather than call it unknown.
            // Every algorithm that promises it (the first one's name alone read as if a
            // Berkeley trace were Cristian's), and what can be judged with no scenario.
            let owners: Vec<&str> = registry
                .algorithms()
                .iter()
                .filter(|a| a.info().properties.contains(&p.as_str()))
                .map(|a| a.info().name)
                .collect();
            if !owners.is_empty() {
                let without: Vec<&str> = known
                    .iter()
                    .copied()
                    .filter(|k| !JUDGED_BY_THE_ALGORITHM.contains(k))
                    .collect();
                // No owner judges from a trace (Ω): `--scenario` would only be refused in
                // turn (the two messages sent the user from one to the other).
                // The command the user typed (`show --check` said "`check`").
                let cmd = if args.from_show {
                    "`show --check`"
                } else {
                    "`check`"
                };
                if !owners.iter().any(|o| judges_from_a_trace(registry, o)) {
                    return Err(format!(
                        "`{p}` is judged by {} on its own state during a run, not from a \
                         trace: {cmd} cannot judge it (run the scenario instead, with \
                         `sincro run`); the properties {cmd} judges without a scenario are: \
                         {}",
                        owners.join(", "),
                        without.join(", ")
                    ));
                }
                // (The aside about properties judged on an algorithm's own state, Ω's, is the
                // message above: it read as if it applied to every algorithm.)
                return Err(format!(
                    "`{p}` is a property {} judge{} {} own way: give --scenario, the scenario \
                     the trace was recorded from, and its algorithm judges it as a run does; \
                     without a scenario, the properties {cmd} judges are: {}",
                    owners.join(", "),
                    if owners.len() == 1 { "s" } else { "" },
                    if owners.len() == 1 { "its" } else { "each its" },
                    without.join(", ")
                ));
            }
            // A misspelling of any property, an algorithm's own among them (they were left
            // out of the list, and nothing said which one was meant).
            let mut every: Vec<&str> = known.clone();
            for a in registry.algorithms() {
                for q in a.info().properties {
                    if !every.contains(&q) {
                        every.push(q);
                    }
                }
            }
            let near = crate::algorithms::closest(p, &every)
                .map(|q| format!("did you mean `{q}`? "))
                .unwrap_or_default();
            return Err(format!(
                "unknown property `{}`; {near}known properties: {}",
                crate::harness::scenario::shown_text(p),
                every.join(", ")
            ));
        }
    }
    let nodes = match args.nodes {
        // Nodes the trace never names would change the verdict (a node that never started
        // counted as a live one with no leader): the header's count, when it has one, is the
        // run's.
        Some(n) if trace.nodes > 0 && n != trace.nodes => {
            return Err(format!(
                "--nodes {n} contradicts the trace's header ({} nodes); give --nodes only for \
                 a header of 0 nodes",
                trace.nodes
            ))
        }
        Some(n) => n,
        None => trace.nodes,
    };
    if let Some(p) = properties
        .iter()
        .find(|p| JUDGED_BY_THE_ALGORITHM.contains(&p.as_str()))
    {
        return Err(format!(
            "`{p}` is judged by each algorithm its own way (the ranking a valid leader wins \
             by, the time a new leader may take to settle): give --scenario, the scenario \
             the trace was recorded from"
        ));
    }
    check_nodes(trace, nodes)?;
    check_count_confirmed(trace, nodes, properties)?;
    check_bound_is_used(args, properties)?;
    // Every property judged against a bound needs one: 0 would be taken literally.
    let needs_bound = properties
        .iter()
        .find(|p| sincro_checkers::needs_liveness_bound(p));
    if let (Some(p), None) = (needs_bound, args.liveness_bound_ms) {
        return Err(format!(
            "checking `{p}` needs --liveness-bound-ms (the bound the algorithm promises; \
             `sincro run` derives it from the scenario)"
        ));
    }
    check_times(args)?;
    let liveness = needs_bound.is_some();
    let end_ns = end_ns(trace, args.end_ms, 0)?;
    let faults = || {
        trace.events().iter().filter_map(|e| match &e.kind {
            EventKind::Fault { fault } => Some((e.t_ns, fault)),
            _ => None,
        })
    };
    // The last fault, or the end when a pause, a partition or loss is still in effect then,
    // as a run of the scenario judges (`Scenario::quiet_from_ms`).
    let faults_end_ms = if sincro_harness::fault::in_effect_at_the_end(faults().map(|(_, f)| f))
        || loses_at_the_end(trace, nodes)?
    {
        end_ns.div_ceil(NS_PER_MS)
    } else {
        faults()
            .map(|(t_ns, _)| t_ns.div_ceil(NS_PER_MS))
            .max()
            .unwrap_or(0)
    };
    // Earlier than the trace's own faults, "after the faults stopped" would be false: a
    // request made while the coordinator was down was blamed as a liveness violation.
    if let Some(q) = args.quiet_from_ms.filter(|&q| q < faults_end_ms) {
        return Err(format!(
            "--quiet-from-ms {q} is before the trace's faults end ({faults_end_ms} ms): \
             liveness is judged from when the faults stop (leave it out to judge from there, \
             or give a later time)"
        ));
    }
    let quiet_from_ms = args.quiet_from_ms.unwrap_or(faults_end_ms);
    // The checkers take their settings from a scenario: a minimal one carries the node count
    // and, as the time of its one (no-op) fault, the quiet time liveness is judged from.
    let mut scenario: Scenario = serde_json::from_value(serde_json::json!({
        "algorithm": "offline",
        "nodes": nodes,
        "seed": 0,
        "duration_ms": end_ns.div_ceil(NS_PER_MS).max(quiet_from_ms).max(1),
    }))
    .map_err(|e| format!("internal: offline scenario: {e}"))?;
    if quiet_from_ms > 0 {
        scenario.faults.push(sincro_harness::TimedFault {
            at_ms: quiet_from_ms,
            fault: Fault::Heal,
        });
    }
    let bound = args.liveness_bound_ms.unwrap_or(0);
    let mut checkers = properties
        .iter()
        .map(|p| {
            registry
                .checker(p, &scenario, bound)
                .ok_or_else(|| format!("no checker for property `{p}`"))
        })
        .collect::<Result<Vec<_>, String>>()?;
    let verdict = judge_trace(trace, end_ns, &mut checkers);
    let verdict = unless_judging_dependent(trace, end_ns, verdict, &|| {
        properties
            .iter()
            .map(|p| {
                registry
                    .checker(p, &scenario, bound)
                    .ok_or_else(|| format!("no checker for property `{p}`"))
            })
            .collect()
    })?;
    let verdict = unless_stopped_early(trace, properties, verdict);
    let verdict = unless_vacuous(trace, &checkers, verdict, "trace");
    Ok((
        verdict,
        Judged {
            nodes,
            quiet_from_ms,
            liveness_bound_ms: liveness.then_some(bound),
            end_ns,
            properties: properties.to_vec(),
        },
    ))
}

/// Refuses `show` options the chosen output would silently ignore.
fn options_read(args: &ShowArgs) -> Result<(), String> {
    let j = &args.judge;
    if args.check.is_empty()
        && (j.quiet_from_ms.is_some()
            || j.liveness_bound_ms.is_some()
            || j.end_ms.is_some()
            || j.scenario.is_some())
    {
        return Err(
            "--quiet-from-ms, --liveness-bound-ms, --end-ms and --scenario say how --check \
             judges; without --check nothing is judged"
                .into(),
        );
    }
    if args.format == Format::Jsonl && !args.check.is_empty() {
        return Err(
            "--check judges the trace for a rendering; --format jsonl writes the trace as it \
             is, with no verdict: use `sincro check` to judge it"
                .into(),
        );
    }
    if args.title.is_some() && args.format != Format::Html {
        return Err("--title names the HTML page; give it with --format html".into());
    }
    // (it made a page with an empty title and heading)
    if args.title.as_deref().is_some_and(|t| t.trim().is_empty()) {
        return Err(
            "--title is empty: give the page's title, or leave --title out for the \
                    scenario's name or the file's"
                .into(),
        );
    }
    Ok(())
}

/// [`judge`] with the checkers a run of the scenario at `path` uses
/// ([`Algorithm::checkers`](crate::algorithms::Algorithm::checkers)): the node count, quiet
/// time and liveness bound are the scenario's (`--liveness-bound-ms` may still set the bound),
/// and the run ended no earlier than the scenario's duration.
fn judge_with_scenario(
    trace: &Trace,
    properties: &[String],
    args: &JudgeArgs,
    path: &Path,
) -> Result<(Verdict, Judged), String> {
    // (--end-ms below the scenario's duration judged a run of it as if it had stopped
    // early: a liveness violation it shows became "could not judge")
    if args.nodes.is_some() || args.quiet_from_ms.is_some() || args.end_ms.is_some() {
        return Err(
            "--nodes, --quiet-from-ms and --end-ms come from the scenario (its node count, its \
             last fault, its duration and where the trace stops): give them or the scenario, \
             not both"
                .into(),
        );
    }
    let at = |e: &dyn std::fmt::Display| {
        if args.scenario_is_input {
            e.to_string()
        } else {
            format!("--scenario {}: {e}", path.display())
        }
    };
    let option = if args.from_show {
        "--check"
    } else {
        "--properties"
    };
    let mut sc = Scenario::load(path).map_err(|e| at(&e))?;
    let alg = crate::algorithms::Registry::current()
        .find(&sc.algorithm)
        .map_err(|e| at(&e))?;
    if let Some(b) = args.liveness_bound_ms {
        sc.checks.liveness_bound_ms = Some(b);
    }
    // --properties names what the algorithm promises (the scenario's `checks.properties`
    // is replaced by it, so an error about it must name the option, not the field).
    let info = alg.info();
    // No --properties: those the scenario asks for, else every one the algorithm promises,
    // as `run` of the scenario judges.
    let chosen: Vec<String>;
    let properties = if properties.is_empty() {
        chosen = sc
            .checks
            .properties
            .clone()
            .unwrap_or_else(|| info.properties.iter().map(|p| p.to_string()).collect());
        &chosen[..]
    } else {
        properties
    };
    if let Some(p) = properties
        .iter()
        .find(|p| !info.properties.contains(&p.as_str()))
    {
        return Err(at(&format!(
            "{option} names `{p}`, which {} does not promise; it promises: {}",
            info.name,
            info.properties.join(", ")
        )));
    }
    check_bound_is_used(args, properties)?;
    // The run's own properties: where its trace ends (a violation of one of them) does not
    // depend on those asked for here.
    let run_properties = sc.checks.properties.clone();
    sc.checks.properties = Some(properties.to_vec());
    // First whether the algorithm judges from a trace at all (Ω judges its own state, and
    // its newcomers make a trace of more nodes than the scenario: that was the reason given).
    let mut checkers = alg.checkers(&sc).map_err(|e| at(&e))?;
    if trace.nodes != 0 && trace.nodes != sc.nodes {
        return Err(format!(
            "the trace has {} nodes and the scenario {} ({}): it is not a trace of that \
             scenario",
            trace.nodes,
            sc.nodes,
            path.display()
        ));
    }
    check_nodes(trace, sc.nodes)?;
    check_faults_within_plan(trace, &sc, path)?;
    check_faults_match_plan(trace, &sc, path)?;
    check_events_possible(trace, &sc, path)?;
    if properties
        .iter()
        .any(|p| p == sincro_checkers::bounded_skew::PROPERTY)
    {
        // bounded_skew judges the clocks it rebuilds from the scenario and the trace's
        // clock changes; the trace's own readings must be those clocks' readings.
        sincro_checkers::bounded_skew::readings_agree(&sc, trace).map_err(|e| {
            format!(
                "{e}: it is not a trace of that scenario ({})",
                path.display()
            )
        })?;
    }
    check_times(args)?;
    let full_end_ns = end_ns(trace, args.end_ms, sc.duration_ms.saturating_mul(NS_PER_MS))?;
    // A trace ends where its run stopped: at a violation of any property the run judged,
    // not only of those asked for (`--properties mutual_exclusion` of a run that stopped at a
    // liveness violation called the trace cut short).
    let run_verdict = if properties.len() < info.properties.len() || run_properties.is_some() {
        let mut run_sc = sc.clone();
        run_sc.checks.properties = run_properties;
        let mut all = alg.checkers(&run_sc).map_err(|e| at(&e))?;
        Some(judge_trace(trace, full_end_ns, &mut all))
    } else {
        None
    };
    // The properties asked for are judged up to where the run stopped, not to the scenario's
    // end: a run stopped at 263 ms by a safety violation was judged `leader_agreement`
    // "violated at 2471 ms, 2207 ms after the last leader report" (its own run passes it).
    // A violation before the trace's last event was found by that event (a safety one
    // when a later instant began, a liveness one when time passed its deadline), and the run
    // stopped there; one at or after it was found by the run's end.
    let last_ns = trace.events().iter().map(|e| e.t_ns).max().unwrap_or(0);
    let end_ns = match &run_verdict {
        Some(Verdict::Violation(v)) if args.end_ms.is_none() && v.t_ns < last_ns => last_ns,
        _ => full_end_ns,
    };
    let verdict = judge_trace(trace, end_ns, &mut checkers);
    let verdict = unless_judging_dependent(trace, end_ns, verdict, &|| {
        alg.checkers(&sc).map_err(|e| at(&e))
    })?;
    let verdict = unless_stopped_early(trace, properties, verdict);
    let verdict = unless_vacuous(trace, &checkers, verdict, "trace");
    let stopped_at = run_verdict.unwrap_or_else(|| verdict.clone());
    let stopped_at = match (&verdict, stopped_at) {
        (Verdict::Violation(_), _) => verdict.clone(),
        (_, v) => v,
    };
    check_not_cut_short(trace, &sc, &stopped_at, path)?;
    let liveness = properties
        .iter()
        .any(|p| sincro_checkers::needs_liveness_bound(p));
    let bound = sc
        .checks
        .liveness_bound_ms
        .unwrap_or_else(|| alg.liveness_bound_ms(&sc));
    let shown_end_ns = match &verdict {
        Verdict::Violation(v) if v.t_ns <= last_ns => last_ns.min(end_ns),
        _ => end_ns,
    };
    Ok((
        verdict,
        Judged {
            properties: properties.to_vec(),
            nodes: sc.nodes,
            quiet_from_ms: sc.quiet_from_ms(),
            liveness_bound_ms: liveness.then_some(bound),
            // A violation the trace's events showed was judged up to them, where the run
            // stopped: "judged up to" the scenario's end said 4967 ms of a trace that ends
            // at 167.5 ms (stop 64's probe).
            end_ns: shown_end_ns,
        },
    ))
}

/// A trace judged with a scenario has no fault after the scenario's last: the quiet time,
/// from which liveness is judged, is the scenario's, and a crash of the leader 4 ms before
/// the end, absent from the scenario, was judged as a live node disagreeing (a liveness
/// violation) where the trace alone could not be judged.
fn check_faults_within_plan(trace: &Trace, sc: &Scenario, path: &Path) -> Result<(), String> {
    let last_ns = sc
        .faults
        .iter()
        .map(|f| f.at_ms.saturating_mul(NS_PER_MS))
        .max();
    let late = trace.events().iter().find_map(|e| match &e.kind {
        EventKind::Fault { fault } if last_ns.is_none_or(|l| e.t_ns > l) => Some((e, fault)),
        _ => None,
    });
    match late {
        None => Ok(()),
        Some((e, fault)) => Err(format!(
            "the trace has a fault ({}, event {}) at {:.3} ms, {}: it is not a trace of that \
             scenario ({}), whose quiet time liveness is judged from",
            render::fault_text(fault),
            e.id,
            e.t_ns as f64 / 1e6,
            match last_ns {
                Some(l) => format!(
                    "after the scenario's faults stop ({:.3} ms)",
                    l as f64 / 1e6
                ),
                None => "and the scenario has none".to_string(),
            },
            path.display()
        )),
    }
}

/// A trace judged with a scenario holds the scenario's planned faults, each at its time, and
/// no other: the quiet time and what the checkers forgive (a crashed node's silence, a
/// partition's lost messages) are read from the plan, and a scenario with one pause more
/// than its trace moved the quiet time past a late grant and passed it. A planned fault is
/// required only before the trace's last instant: a fault is an event, so a run that went
/// past its time recorded it; a run may stop before it (at a violation, a limit, a cut), and
/// one at the run's end is never applied.
fn check_faults_match_plan(trace: &Trace, sc: &Scenario, path: &Path) -> Result<(), String> {
    let key =
        |t_ns: u64, f: &crate::harness::Fault| (t_ns, serde_json::to_string(f).unwrap_or_default());
    let mut recorded: Vec<(u64, String)> = trace
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Fault { fault } => Some(key(e.t_ns, fault)),
            _ => None,
        })
        .collect();
    recorded.sort();
    let mut planned: Vec<(u64, String)> = sc
        .faults
        .iter()
        .map(|f| key(f.at_ms.saturating_mul(NS_PER_MS), &f.fault))
        .collect();
    planned.sort();
    let reached_before = trace.events().last().map_or(0, |e| e.t_ns);
    let not_a_trace = |what: String| {
        format!(
            "{what}: it is not a trace of that scenario ({}), whose fault plan the checkers \
             read",
            path.display()
        )
    };
    let mut left = recorded;
    for p in &planned {
        match left.iter().position(|r| r == p) {
            Some(i) => {
                left.remove(i);
            }
            None if p.0 < reached_before => {
                return Err(not_a_trace(format!(
                    "the scenario's fault {} at {:.3} ms is not in the trace",
                    p.1,
                    p.0 as f64 / 1e6
                )))
            }
            None => {}
        }
    }
    match left.first() {
        None => Ok(()),
        Some(r) => Err(not_a_trace(format!(
            "the trace's fault {} at {:.3} ms is not in the scenario's plan",
            r.1,
            r.0 as f64 / 1e6
        ))),
    }
}

/// A trace judged with a scenario is judged up to the scenario's end (or its violation): it
/// must hold what the run did up to there. A run records each planned fault at its time, and
/// each input at its time unless its node is paused then (it waits for the resume); a trace
/// without one of them before that time was cut short by hand (a trace has no end marker) and
/// was judged as if the run had gone quiet: a deadlock run's first 25 events passed, where
/// the run broke `deadlock_completeness`. A trace that says it stops early (a cut, a panic, a
/// run limit) ends where it says; one that stops at a violation holds what came before it.
fn check_not_cut_short(
    trace: &Trace,
    sc: &Scenario,
    verdict: &Verdict,
    path: &Path,
) -> Result<(), String> {
    use std::collections::BTreeMap;
    if stops_early(trace).is_some() || matches!(verdict, Verdict::LimitExceeded { .. }) {
        return Ok(());
    }
    let until_ns = match verdict {
        Verdict::Violation(v) => v.t_ns,
        _ => sc.duration_ms.saturating_mul(NS_PER_MS),
    };
    let last_ns = trace.events().last().map_or(0, |e| e.t_ns);
    // What the trace holds: faults by (time, fault), inputs by (time, node).
    let mut held: BTreeMap<(u64, String), usize> = BTreeMap::new();
    for e in trace.events() {
        let key = match (&e.kind, e.node) {
            (EventKind::Fault { fault }, _) => format!("fault {}", render::fault_text(fault)),
            (EventKind::Input { .. }, Some(v)) => format!("input to node {v}"),
            _ => continue,
        };
        *held.entry((e.t_ns, key)).or_default() += 1;
    }
    let paused = |node: usize| {
        sc.faults
            .iter()
            .any(|f| matches!(f.fault, crate::harness::Fault::Pause { node: v } if v == node))
    };
    let faults = sc.faults.iter().map(|f| {
        let at = f.at_ms.saturating_mul(NS_PER_MS);
        (at, format!("fault {}", render::fault_text(&f.fault)))
    });
    let inputs = sc.workload.iter().filter(|w| !paused(w.node)).map(|w| {
        let at = w.at_ms.saturating_mul(NS_PER_MS);
        (at, format!("input to node {}", w.node))
    });
    let mut planned: Vec<(u64, String)> = faults
        .chain(inputs)
        .filter(|(t, _)| *t < until_ns)
        .collect();
    planned.sort();
    for item in planned {
        match held.get_mut(&item) {
            Some(n) if *n > 0 => *n -= 1,
            _ => {
                let (t, what) = item;
                let why = if t > last_ns {
                    format!(
                        "the trace stops at {:.3} ms, before the scenario's {what} at {:.3} \
                         ms, which a run to {:.3} ms records: it was cut short (a trace ends \
                         where its run did: at the scenario's end, a violation, a limit or a \
                         cut), or it",
                        last_ns as f64 / 1e6,
                        t as f64 / 1e6,
                        until_ns as f64 / 1e6
                    )
                } else {
                    format!(
                        "the scenario's {what} at {:.3} ms is not in the trace: it",
                        t as f64 / 1e6
                    )
                };
                return Err(format!(
                    "{why} is not a trace of that scenario ({})",
                    path.display()
                ));
            }
        }
    }
    check_no_message_overdue(trace, sc, until_ns, path)
}

/// A trace judged with a scenario holds only what a run of it can do: no event after the
/// scenario's end (beyond [`FATE_SLACK_NS`], madsim's few µs and turmoil's late drops), and no
/// message delivered twice when no link of it duplicates (stop 65's probe: an event moved to
/// 10^9 ms was "judged up to 1000000000.000 ms" of a 600 ms scenario).
fn check_events_possible(trace: &Trace, sc: &Scenario, path: &Path) -> Result<(), String> {
    let not_a_trace = |what: String| {
        format!(
            "{what}: it is not a trace of that scenario ({})",
            path.display()
        )
    };
    let end_ns = sc.duration_ms.saturating_mul(NS_PER_MS);
    if let Some(e) = trace
        .events()
        .iter()
        .find(|e| e.t_ns > end_ns.saturating_add(FATE_SLACK_NS))
    {
        return Err(not_a_trace(format!(
            "event {} at {:.3} ms is after the scenario's end at {:.3} ms",
            e.id,
            e.t_ns as f64 / 1e6,
            end_ns as f64 / 1e6
        )));
    }
    let duplicates = sc.network.duplicate > 0.0
        || sc.network.links.iter().any(|l| l.duplicate.is_some())
        || sc
            .faults
            .iter()
            .any(|f| matches!(&f.fault, Fault::SetLinks(o) if o.duplicate.is_some()));
    if duplicates {
        return Ok(());
    }
    let mut delivered = std::collections::HashSet::new();
    for e in trace.events() {
        if let EventKind::Deliver { msg_id, .. } = e.kind {
            if !delivered.insert(msg_id) {
                return Err(not_a_trace(format!(
                    "message {msg_id} is delivered twice (event {}), and no link of the \
                     scenario duplicates",
                    e.id
                )));
            }
        }
    }
    Ok(())
}

/// Slack past a link's largest latency within which every engine records a message's fate:
/// turmoil counts whole milliseconds and records a message its crashed destination never
/// read 2 ms after it was due; madsim's transport takes about 2 ms whatever the latency,
/// 1 ms more for a message sent at a node's start.
const FATE_SLACK_NS: u64 = 10 * NS_PER_MS;

/// A run records every message's fate, delivered or dropped, by its latest arrival: its
/// send time plus the largest latency any link of the scenario can have (a FIFO link holds
/// a message only behind an earlier one, due no later). A trace that holds a message sent
/// at 10 ms over links of at most 40 ms, with no delivery or drop, and stops at 30 ms of a
/// 300 ms run was cut short by hand where its planned inputs and faults could not tell: it
/// passed a `mutual_exclusion` violation at 52 ms, and a passing run's first 43 events were
/// judged a liveness violation (stop 65's probe). A message to a node the scenario pauses
/// is not judged: it waits for the resume.
fn check_no_message_overdue(
    trace: &Trace,
    sc: &Scenario,
    until_ns: u64,
    path: &Path,
) -> Result<(), String> {
    use std::collections::{BTreeSet, HashSet};
    let paused: BTreeSet<usize> = sc
        .faults
        .iter()
        .filter_map(|f| match f.fault {
            Fault::Pause { node } => Some(node),
            _ => None,
        })
        .collect();
    let overrides = sc.network.links.iter().filter_map(|l| l.latency.as_ref());
    let set_links = sc.faults.iter().filter_map(|f| match &f.fault {
        Fault::SetLinks(o) => o.latency.as_ref(),
        _ => None,
    });
    let latency_max_ns = std::iter::once(&sc.network.latency)
        .chain(overrides)
        .chain(set_links)
        .map(|l| l.max_ns())
        .max()
        .unwrap_or(0);
    let due_ns = |sent_ns: u64| {
        sent_ns
            .saturating_add(latency_max_ns)
            .saturating_add(FATE_SLACK_NS)
    };
    let settled: HashSet<u64> = trace
        .events()
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::Deliver { msg_id, .. } | EventKind::Drop { msg_id, .. } => Some(msg_id),
            _ => None,
        })
        .collect();
    let overdue = trace.events().iter().find(|e| match e.kind {
        EventKind::Send { msg_id, to, .. } => {
            !settled.contains(&msg_id) && !paused.contains(&to) && due_ns(e.t_ns) < until_ns
        }
        _ => false,
    });
    let Some(e) = overdue else { return Ok(()) };
    let (EventKind::Send { msg_id, to, .. }, Some(from)) = (&e.kind, e.node) else {
        return Ok(());
    };
    let last_ns = trace.events().last().map_or(0, |e| e.t_ns);
    Err(format!(
        "message {msg_id} (node {from} -> node {to}, event {}) sent at {:.3} ms is neither \
         delivered nor dropped in the trace, which stops at {:.3} ms; a run to {:.3} ms records \
         its fate by {:.3} ms (the scenario's links take at most {:.3} ms): the trace was cut \
         short (a trace ends where its run did: at the scenario's end, a violation, a limit or \
         a cut), or it is not a trace of that scenario ({})",
        e.id,
        e.t_ns as f64 / 1e6,
        last_ns as f64 / 1e6,
        until_ns as f64 / 1e6,
        due_ns(e.t_ns) as f64 / 1e6,
        latency_max_ns as f64 / 1e6,
        path.display()
    ))
}

/// `ns` in ms, to the µs as usual (`10.000`), to the ns when it is not a whole µs
/// (`10.000001`): a message that compares it with a value given must not round it away.
fn ms_to_the_ns(ns: u64) -> String {
    let (whole, frac) = (ns / NS_PER_MS, ns % NS_PER_MS);
    if frac % 1000 == 0 {
        format!("{whole}.{:03}", frac / 1000)
    } else {
        format!("{whole}.{frac:06}")
    }
}

/// Refuses `--liveness-bound-ms` when no property judged here is judged against a bound
/// (each is built in and needs none): it would change nothing, as a scenario's
/// `checks.liveness_bound_ms` would not.
fn check_bound_is_used(args: &JudgeArgs, properties: &[String]) -> Result<(), String> {
    let Some(bound) = args.liveness_bound_ms else {
        return Ok(());
    };
    if properties
        .iter()
        .all(|p| sincro_checkers::ignores_liveness_bound(p))
    {
        return Err(format!(
            "--liveness-bound-ms {bound} is given, but no property judged here ({}) is judged \
             against a liveness bound: leave it out, or judge one that is (such as liveness)",
            properties.join(", ")
        ));
    }
    Ok(())
}

/// Times from the command line are bounded as a scenario's are (no run is longer), and a
/// liveness bound of 0 is refused as a scenario's is.
fn check_times(args: &JudgeArgs) -> Result<(), String> {
    if args.liveness_bound_ms == Some(0) {
        return Err(
            "--liveness-bound-ms 0: nothing that takes a message or a step can happen within \
             0 ms of what it answers (a request served, a leader elected, a deadlock \
             detected), and a scenario refuses a bound of 0 too; give at least 1"
                .into(),
        );
    }
    for (flag, v) in [
        ("--quiet-from-ms", args.quiet_from_ms),
        ("--liveness-bound-ms", args.liveness_bound_ms),
        ("--end-ms", args.end_ms),
    ] {
        if let Some(ms) = v.filter(|&ms| ms > sincro_harness::MAX_TIME_MS) {
            return Err(format!(
                "{flag} = {ms} is outside [0, {}] ms (the limit on any time)",
                sincro_harness::MAX_TIME_MS
            ));
        }
    }
    Ok(())
}

/// When the run ended: `--end-ms`, never before the trace's last event (the checkers would
/// judge the events after it and report "judged up to" a time they went past), else the
/// later of that event and `at_least_ns`.
fn end_ns(trace: &Trace, end_ms: Option<u64>, at_least_ns: u64) -> Result<u64, String> {
    let last_ns = trace.events().iter().map(|e| e.t_ns).max().unwrap_or(0);
    if let Some(why) = stops_early(trace) {
        // The run (or its record) ends at the last event: nothing after it can be judged.
        return match end_ms {
            Some(ms) if ms.saturating_mul(NS_PER_MS) != last_ns => Err(format!(
                "--end-ms {ms}: the trace stops at its last event, at {:.3} ms ({why}); \
                 nothing after it can be judged",
                last_ns as f64 / 1e6
            )),
            _ => Ok(last_ns),
        };
    }
    match end_ms {
        // The event's time to the ns, and the smallest value accepted: "10 is before …, at
        // 10.000 ms" read as a contradiction of an event at 10.000001 ms.
        Some(ms) if ms.saturating_mul(NS_PER_MS) < last_ns => Err(format!(
            "--end-ms {ms} is before the trace's last event, at {} ms: the run cannot \
             have ended before it (give at least --end-ms {})",
            ms_to_the_ns(last_ns),
            last_ns.div_ceil(NS_PER_MS)
        )),
        Some(ms) => Ok(ms.saturating_mul(NS_PER_MS)),
        None => Ok(last_ns.max(at_least_ns)),
    }
}

/// A trace that ends in a `cut` inside an instant, without that instant's events: the cut
/// may have come before the rest of them (the trace's size limit stops recording between two
/// events; a run limit stops the run at an event of its instant), and a half-recorded instant
/// is no moment of the run (a `cs_enter` recorded without the same instant's `cs_exit` of the
/// holder was a mutual exclusion violation). The cut itself is kept: it ends the instants
/// before it. `None` when the trace does not end in a cut, or the cut follows its last event
/// in time (the run stopped later).
fn without_cut_instant(trace: &Trace) -> Option<Trace> {
    let (cut, rest) = trace.events().split_last()?;
    if !matches!(cut.kind, EventKind::Cut { .. }) || rest.last()?.t_ns != cut.t_ns {
        return None;
    }
    // a panic of the instant is kept: the run stopped at it
    let mut events: Vec<Event> = rest
        .iter()
        .filter(|e| e.t_ns < cut.t_ns || matches!(e.kind, EventKind::Panic { .. }))
        .cloned()
        .collect();
    for (i, e) in events.iter_mut().enumerate() {
        e.id = i as u64;
    }
    let mut cut = cut.clone();
    cut.id = events.len() as u64;
    events.push(cut);
    Some(Trace::new(trace.nodes, events))
}

/// Why the trace stops before its run's end, when its last event says so: a `cut` (a run
/// limit, or the trace's own size limit) or a panic.
fn stops_early(trace: &Trace) -> Option<String> {
    if let Some(EventKind::Panic { message }) = panic_of(trace).map(|e| &e.kind) {
        return Some(format!("the algorithm panicked: {message}"));
    }
    match &trace.events().last()?.kind {
        EventKind::Cut { reason, .. } => Some(format!("cut: {reason}")),
        _ => None,
    }
}

/// The panic the run stopped at: in the trace's last instant (other nodes' events of it may
/// be listed after it, and a cut). Of two nodes' panics in that instant, the lowest node's:
/// nothing orders an instant's lines, and the one reported followed line order.
fn panic_of(trace: &Trace) -> Option<&Event> {
    let last_t = trace.events().last()?.t_ns;
    trace
        .events()
        .iter()
        .rev()
        .take_while(|e| e.t_ns == last_t)
        .filter(|e| matches!(e.kind, EventKind::Panic { .. }))
        .min_by_key(|e| e.node)
}

/// The verdict of a trace that stops early ([`stops_early`]) when nothing was violated up
/// to its end: the run's own (its limit, its panic), or *could not judge* when the run went
/// on unrecorded — never a pass, nor a liveness violation the run never got to (the checkers
/// were judged up to the trace's last event only).
fn unless_stopped_early(trace: &Trace, properties: &[String], verdict: Verdict) -> Verdict {
    if let Verdict::Violation(v) = &verdict {
        // A violation at the cut (or after it) is a judgement of the run's end, which the
        // trace does not reach, made on states its dropped last instant may have changed
        // (replicas "disagreeing at the end" with a state of 10 ms, where the cut instant
        // held the newer one). Before the cut, it stands.
        let cut_ns = trace
            .events()
            .last()
            .filter(|e| matches!(e.kind, EventKind::Cut { .. }))
            .map(|e| e.t_ns);
        if cut_ns.is_none_or(|c| v.t_ns < c) {
            return verdict;
        }
    }
    if let Some(p) = panic_of(trace) {
        if let EventKind::Panic { message } = &p.kind {
            return Verdict::Panic {
                node: p.node.unwrap_or_default(),
                t_ns: p.t_ns,
                message: message.clone(),
            };
        }
    }
    let Some(last) = trace.events().last() else {
        return verdict;
    };
    match &last.kind {
        EventKind::Cut {
            reason,
            run_stopped: true,
        } => Verdict::LimitExceeded {
            limit: reason.clone(),
        },
        EventKind::Cut { reason, .. } => Verdict::Unjudged {
            // every property asked: none can be judged past the cut
            property: properties.join(","),
            reason: format!(
                "the trace stops at {:.3} ms ({reason}) and the run went on unrecorded: \
                 nothing after it can be judged",
                last.t_ns as f64 / 1e6
            ),
        },
        EventKind::Panic { message } => Verdict::Panic {
            node: last.node.unwrap_or_default(),
            t_ns: last.t_ns,
            message: message.clone(),
        },
        _ => verdict,
    }
}

/// Checkers as [`unless_judging_dependent`] builds them, fresh for each judgement.
type BuildCheckers<'a> = dyn Fn() -> Result<Vec<Box<dyn sincro_harness::Checker>>, String> + 'a;

/// `verdict`, judged on `trace` as written with every event passed, unless a checker that
/// `build` makes judges otherwise when nothing about the run changes: with each instant's lines in
/// another order ([`unless_order_dependent`]), or passed only the events its gate lets
/// through, as the engines pass them online ([`sincro_harness::check::gate_dependence`]: a
/// checker of one's own whose `interest()` or `wake_at_ns()` leaves out an event it reads).
/// Then no verdict ([`Verdict::Unjudged`]), naming the checker and both verdicts.
fn unless_judging_dependent(
    trace: &Trace,
    end_ns: u64,
    verdict: Verdict,
    build: &BuildCheckers<'_>,
) -> Result<Verdict, String> {
    let verdict = unless_order_dependent(trace, end_ns, verdict, build)?;
    if matches!(verdict, Verdict::Unjudged { .. }) {
        return Ok(verdict);
    }
    let (mut every, mut gated) = (build()?, build()?);
    Ok(
        match sincro_harness::check::gate_dependence(trace, end_ns, &mut every, &mut gated) {
            Some(d) => Verdict::Unjudged {
                property: d.property.clone(),
                reason: d.to_string(),
            },
            None => verdict,
        },
    )
}

/// `verdict`, judged on `trace` as written, unless the checkers `build` makes judge the same
/// trace with each instant's lines in another order it allows
/// ([`sincro_harness::reorder::reorder_instants`]) differently: then no verdict
/// ([`Verdict::Unjudged`]) naming the checker and both verdicts. Nothing orders two nodes'
/// events of one instant, so such a verdict is one of the line order, not of the run (a
/// user's checker that judges line by line; every built-in one judges instants as sets).
fn unless_order_dependent(
    trace: &Trace,
    end_ns: u64,
    verdict: Verdict,
    build: &BuildCheckers<'_>,
) -> Result<Verdict, String> {
    let reordered = sincro_harness::reorder::reorder_instants(trace);
    if judge_trace(&reordered, end_ns, &mut build()?).label() == verdict.label() {
        return Ok(verdict);
    }
    // Which checker: each judged alone on both orders.
    let (mut a, mut b) = (build()?, build()?);
    for (ca, cb) in a.iter_mut().zip(b.iter_mut()) {
        let va = judge_trace(trace, end_ns, std::slice::from_mut(ca));
        let vb = judge_trace(&reordered, end_ns, std::slice::from_mut(cb));
        if va.label() != vb.label() {
            return Ok(Verdict::Unjudged {
                property: ca.property().to_string(),
                reason: format!(
                    "its verdict depends on the order of one instant's lines: {} as written, \
                     {} with each instant in another order the run allows (each node's events \
                     in order, a delivery after its send); a checker must judge an instant as \
                     a set",
                    va.label(),
                    vb.label()
                ),
            });
        }
    }
    Ok(verdict)
}

/// A pass by a trace with none of the events a checker reads judged nothing (a mutual
/// exclusion trace checked for leader_uniqueness): [`Verdict::Unjudged`], naming the kinds.
/// The kinds are what the checker declares (`Checker::evidence`: a built-in checker's is its
/// property's `Property::EVIDENCE`), so a spec's own checker under a built-in name is asked.
///
/// `of` says what the events are of, as the message names it: `"trace"` for a file `check`
/// reads, `"run"` for a run of a scenario (as a run's own checkers say it: `run` and `shrink`
/// of one scenario worded it two ways).
pub(crate) fn unless_vacuous(
    trace: &Trace,
    checkers: &[Box<dyn sincro_harness::Checker>],
    verdict: Verdict,
    of: &str,
) -> Verdict {
    if !verdict.is_pass() {
        return verdict;
    }
    match checkers.iter().find_map(|c| {
        let p = c.property();
        let kinds = c.evidence();
        // read once, in order: a packed trace is not unpacked for it
        let evidence = kinds.is_empty()
            || trace
                .iter()
                .any(|e| sincro_checkers::is_evidence(&e, kinds));
        (!evidence).then_some((p, kinds))
    }) {
        Some((p, kinds)) => Verdict::Unjudged {
            property: p.to_string(),
            reason: format!(
                "the {of} has no event of the kinds it reads ({}): nothing was judged",
                kinds
                    .iter()
                    .map(|k| sincro_checkers::evidence_text(k))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        },
        None => verdict,
    }
}

/// Prints an error and returns the bad-input exit code.
fn bad_input(msg: impl std::fmt::Display) -> i32 {
    eprintln!("error: {}", crate::cli::for_program(&msg.to_string()));
    exit::BAD_INPUT
}

/// Writes `text` to `out` (creating its folder) or to standard output.
fn emit(out: Option<&Path>, text: &str) -> Result<(), String> {
    match out {
        Some(path) => {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                crate::fuzz::create_dir_all(dir)
                    .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            }
            // A write cut short (a full disk) leaves no partial file that reads as a whole
            // one: a truncated trace gave `check` "not a trace: line 325: EOF".
            let regular = std::fs::metadata(path).map_or(true, |m| m.is_file());
            // A FIFO no program reads is an error at once, not a wait with no end.
            let written = match sincro_harness::scenario::open_fifo_for_writing(path) {
                Some(f) => f.and_then(|mut f| f.write_all(text.as_bytes())),
                None => std::fs::write(path, text),
            };
            written.map_err(|e| {
                if regular {
                    let _ = std::fs::remove_file(path);
                }
                format!("cannot write {}: {e}", path.display())
            })
        }
        None => {
            let mut stdout = std::io::stdout().lock();
            match stdout
                .write_all(text.as_bytes())
                .and_then(|_| stdout.flush())
            {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    Err(format!("cannot write to standard output: {e}"))
                }
                _ => Ok(()),
            }
        }
    }
}

/// Runs `sincro show`; returns the exit code (0 once rendered, whatever the verdict; 2 for bad
/// input).
pub fn show(args: &ShowArgs) -> i32 {
    if let Some(out) = &args.out {
        let overwrites =
            crate::refuse_overwrite("--out", out, &[&args.input], "the input itself", "it")
                .and_then(|()| match &args.judge.scenario {
                    Some(sc) => crate::refuse_overwrite(
                        "--out",
                        out,
                        &[sc],
                        "the --scenario file",
                        "the scenario",
                    ),
                    None => Ok(()),
                });
        if let Err(e) = overwrites {
            return bad_input(e);
        }
    }
    if let Err(e) = options_read(args) {
        return bad_input(e);
    }
    let input = match load_with_nodes(&args.input, args.engine, args.judge.nodes) {
        Ok(i) => i,
        Err(e) => return bad_input(e),
    };
    if let (Input::Trace(_), Some(_)) = (&input, args.engine) {
        return bad_input(format!(
            "--engine runs a scenario input on another engine; {} is a trace",
            args.input.display()
        ));
    }
    if let Input::Trace(t) = &input {
        if let Err(e) = check_nodes(t, t.nodes) {
            return bad_input(format!("{}: {e}", args.input.display()));
        }
    }
    let trace = input.trace();
    let file_name = args.input.file_name().map_or_else(
        || args.input.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let mut verdict = match &input {
        Input::Run { verdict, .. } => Some(verdict.clone()),
        Input::Trace(_) => None,
    };
    if !args.check.is_empty() {
        // A scenario input is the scenario its trace was recorded from (unless the node
        // count or the quiet time are given by hand).
        let mut how = args.judge.clone();
        how.from_show = true;
        if matches!(input, Input::Run { .. })
            && how.scenario.is_none()
            && how.nodes.is_none()
            && how.quiet_from_ms.is_none()
        {
            how.scenario = Some(args.input.clone());
            how.scenario_is_input = true;
        }
        match judge(trace, &args.check, &how) {
            Ok((v, _)) => verdict = Some(v),
            Err(e) => return bad_input(format!("{}: {e}", args.input.display())),
        }
    }
    let title = args.title.clone().unwrap_or_else(|| match &input {
        Input::Run { scenario: sc, .. } => format!(
            "{}: {} / {}, seed {}, {} engine",
            if sc.name.is_empty() {
                &file_name
            } else {
                &sc.name
            },
            sc.algorithm,
            sc.variant,
            sc.seed,
            sc.engine.name()
        ),
        Input::Trace(_) => format!("trace {file_name}"),
    });
    if args.format == Format::Jsonl && args.view != ViewArgs::default() {
        return bad_input(
            "--all, --node, --from-ms, --to-ms and --only choose what a rendering shows; \
             --format jsonl writes the whole trace",
        );
    }
    let sel = match selection(trace, verdict.as_ref(), &args.view) {
        Ok(s) => s,
        Err(e) => return bad_input(format!("{}: {e}", args.input.display())),
    };
    let text = match args.format {
        Format::Text => render::text_view(trace, &sel, verdict.as_ref()),
        Format::Mermaid => render::mermaid_view(trace, &sel, verdict.as_ref()),
        Format::Html => render::html_view(trace, &sel, verdict.as_ref(), &title),
        Format::Jsonl => {
            let mut text = Vec::new();
            if let Err(e) = trace.write_jsonl(&mut text) {
                return bad_input(format!("{}: {e}", args.input.display()));
            }
            String::from_utf8(text).expect("JSON is UTF-8")
        }
    };
    if let Err(e) = emit(args.out.as_deref(), &text) {
        return bad_input(e);
    }
    if let Some(out) = &args.out {
        // what the rendering drew: Mermaid and HTML cut a long selection (keeping the
        // violation and its causal past), and say so in the file
        // (a node's first start draws nothing: it is not counted as shown)
        let drawable = sel.drawable(trace).shown.len();
        let (shown, what) = match args.format {
            Format::Mermaid => (drawable.min(render::MERMAID_MAX_EVENTS), "shown"),
            Format::Html => (drawable.min(render::HTML_MAX_EVENTS), "shown"),
            Format::Text => (sel.shown.len(), "shown"),
            // the trace itself, every event (a selection shapes the views only)
            Format::Jsonl => (trace.len(), "written"),
        };
        // The verdict quotes the trace's own texts: escaped, as the timeline's verdict line.
        eprintln!(
            "wrote {} ({shown} of {} events {what}; {})",
            crate::harness::scenario::shown(out),
            trace.len(),
            verdict.as_ref().map_or_else(
                || "not judged".to_string(),
                |v| crate::harness::scenario::shown_text(&v.to_string())
            )
        );
    }
    exit::PASS
}

/// Runs `sincro check`; returns the exit code (0 pass, 1 violation, 2 bad input).
pub fn check(args: &CheckArgs) -> i32 {
    let text = match crate::harness::scenario::read_limited(&args.trace, MAX_INPUT_BYTES) {
        Ok(t) => t,
        Err(e) => return bad_input(format!("cannot read {}: {e}", args.trace.display())),
    };
    if !is_trace(&args.trace, &text) {
        return bad_input(format!(
            "{}: not a trace (JSON Lines with a {{\"sincro_trace\": 1, \"nodes\": N}} header); \
             to judge a scenario, use `sincro run`",
            args.trace.display()
        ));
    }
    let trace = match Trace::read_jsonl(text.as_bytes()) {
        Ok(t) => t,
        Err(e) => return bad_input(format!("{}: not a trace: {e}", args.trace.display())),
    };
    // The file's text is not read again: its memory is given back before the judging, which
    // holds the trace (and a reordered copy of it) meanwhile.
    drop(text);
    let (verdict, judged) = match judge(&trace, &args.properties, &args.judge) {
        Ok(r) => r,
        Err(e) => return bad_input(format!("{}: {e}", args.trace.display())),
    };
    let mut how = format!(
        "{} events, {} nodes, judged up to {:.3} ms",
        trace.len(),
        judged.nodes,
        judged.end_ns as f64 / 1e6
    );
    if let Some(b) = judged.liveness_bound_ms {
        how.push_str(&format!(
            "; liveness from {} ms within {b} ms",
            judged.quiet_from_ms
        ));
    }
    // A verdict quotes the trace's own texts (a message's, a panic's): on one line, their
    // control and bidirectional characters escaped as the timeline escapes them (a hand-made
    // trace's `\r\u{1b}[2KPASS: …` made a violation read as a pass, stop 73's probe).
    let verdict_line = crate::harness::scenario::shown_text(&verdict.to_string());
    match &verdict {
        Verdict::Violation(_) => {
            println!("{verdict_line}");
            println!("  {how}");
            println!("  events involved:");
            let involved = violating_events(&trace, &verdict);
            let shown = &involved[..involved.len().min(INVOLVED_LINES_MAX)];
            let columns = render::Columns::fitting(shown.iter().copied(), trace.nodes);
            for e in shown {
                println!("  >>{}", render::event_line_in(e, &columns));
            }
            if involved.len() > shown.len() {
                println!(
                    "  … and {} more events involved (`sincro show` marks them all)",
                    involved.len() - shown.len()
                );
            }
        }
        Verdict::Pass => println!("PASS: {} held ({how})", judged.properties.join(", ")),
        _ => {
            println!("{verdict_line}");
            println!("  {how}");
        }
    }
    crate::exit_code(&verdict)
}

/// Runs `sincro diff`; returns the exit code (0 identical, 1 different, 2 bad input).
pub fn diff(args: &DiffArgs) -> i32 {
    let (a, b) = match (
        load_with_nodes(&args.a, args.engine, args.nodes),
        load_with_nodes(&args.b, args.engine, args.nodes),
    ) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => return bad_input(e),
    };
    if args.engine.is_some() && matches!((&a, &b), (Input::Trace(_), Input::Trace(_))) {
        return bad_input(
            "--engine runs a scenario input on another engine; both inputs are traces",
        );
    }
    let (ta, tb) = (a.trace(), b.trace());
    let mut code = exit::PASS;
    // Two scenario files: runs of different scenarios differ for that reason, which the first
    // diverging event alone does not say (it read as an engine's or a run's difference).
    if let (Input::Run { scenario: sa, .. }, Input::Run { scenario: sb, .. }) = (&a, &b) {
        let fields = scenario_differences(sa, sb);
        if !fields.is_empty() {
            println!(
                "the scenarios differ in: {} (their runs are expected to differ)",
                fields.join(", ")
            );
            code = exit::VIOLATION;
        }
    }
    if ta.nodes != tb.nodes {
        println!(
            "node counts differ: a has {} nodes, b has {}",
            ta.nodes, tb.nodes
        );
        code = exit::VIOLATION;
    }
    // Identical traces cut by their size limit say nothing of what the runs did after the
    // cut (stop 72's probe: two runs that ended in different verdicts read "identical").
    let unrecorded = match ta.events().last() {
        Some(Event {
            t_ns,
            kind: EventKind::Cut {
                run_stopped: false, ..
            },
            ..
        }) => format!(
            "; both were cut at {:.3} ms and the runs went on unrecorded: what they did after \
             it is not compared",
            *t_ns as f64 / 1e6
        ),
        _ => String::new(),
    };
    match first_divergence(ta, tb, args.context) {
        None if code == exit::PASS => {
            println!("identical ({} events{unrecorded})", ta.len())
        }
        None => println!("the events are identical ({}{unrecorded})", ta.len()),
        Some(d) => {
            print!("{d}");
            code = exit::VIOLATION;
        }
    }
    code
}

/// The top-level fields of two scenarios that differ, in the file's order, leaving out those
/// that do not change a run (`name`, `description`, `expect`).
fn scenario_differences(a: &Scenario, b: &Scenario) -> Vec<String> {
    let (Ok(serde_json::Value::Object(a)), Ok(serde_json::Value::Object(b))) =
        (serde_json::to_value(a), serde_json::to_value(b))
    else {
        return Vec::new();
    };
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
    keys.dedup();
    let mut seen = std::collections::BTreeSet::new();
    keys.into_iter()
        .filter(|k| !matches!(k.as_str(), "name" | "description" | "expect"))
        .filter(|k| seen.insert(k.as_str()))
        .filter(|k| a.get(k.as_str()) != b.get(k.as_str()))
        .cloned()
        .collect()
}

/// The most events involved in a violation `check` prints (a `total_order` cycle through
/// 160,000 messages printed 160,000 lines).
pub const INVOLVED_LINES_MAX: usize = 50;

/// The events of `trace` a verdict points at (for callers that print them).
pub fn violating_events<'t>(trace: &'t Trace, verdict: &Verdict) -> Vec<&'t Event> {
    match verdict {
        Verdict::Violation(v) => {
            // A set: a cycle of `total_order` names hundreds of thousands of events.
            let named: std::collections::BTreeSet<u64> = v.events.iter().copied().collect();
            trace
                .events()
                .iter()
                .filter(|e| named.contains(&e.id))
                .collect()
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A time compared with a value given is not rounded away: an event 1 ns past 10 ms was
    /// "at 10.000 ms", beside "--end-ms 10 is before" it.
    #[test]
    fn a_time_in_a_message_keeps_its_ns() {
        assert_eq!(ms_to_the_ns(10_000_001), "10.000001");
        assert_eq!(ms_to_the_ns(10_000_000), "10.000");
        assert_eq!(ms_to_the_ns(60_500_000), "60.500");
        assert_eq!(ms_to_the_ns(0), "0.000");
        let trace = Trace::new(
            1,
            vec![crate::harness::Event {
                id: 0,
                t_ns: 10_000_001,
                node: Some(0),
                local_ns: Some(0),
                kind: EventKind::Start { incarnation: 0 },
            }],
        );
        let e = end_ns(&trace, Some(10), 0).unwrap_err();
        assert!(
            e.contains("at 10.000001 ms") && e.contains("give at least --end-ms 11"),
            "{e}"
        );
    }
    use sincro_harness::check::Violation;
    use sincro_harness::Checker;

    /// A user's checker that reads its own `primary_on` observations and declares so.
    struct Primaries;

    impl Checker for Primaries {
        fn property(&self) -> &'static str {
            "at_most_one_primary"
        }
        fn on_event(&mut self, _: &Event) -> Result<(), Violation> {
            Ok(())
        }
        fn finish(&mut self, _: u64) -> Result<(), Violation> {
            Ok(())
        }
        fn evidence(&self) -> &'static [&'static str] {
            &["primary_on"]
        }
    }

    /// A checker that blames the first line of a two-node instant when it is node 1's: a
    /// judgement of the line order, not of the run.
    struct NodeZeroFirst(Option<u64>);

    impl Checker for NodeZeroFirst {
        fn property(&self) -> &'static str {
            "node_zero_first"
        }
        fn on_event(&mut self, e: &Event) -> Result<(), Violation> {
            if self.0.replace(e.t_ns) != Some(e.t_ns) && e.node == Some(1) {
                return Err(Violation {
                    property: "node_zero_first".into(),
                    class: sincro_harness::PropertyClass::Safety,
                    explanation: "node 1 first".into(),
                    t_ns: e.t_ns,
                    events: vec![e.id],
                });
            }
            Ok(())
        }
        fn finish(&mut self, _: u64) -> Result<(), Violation> {
            Ok(())
        }
        fn evidence(&self) -> &'static [&'static str] {
            &[]
        }
    }

    /// A verdict that changes with the order of one instant's lines is no verdict: the trace
    /// as written passes the line-order checker, the same run reordered (node 1 first) does
    /// not, so `check` could not judge it; beside an order-independent checker the verdict
    /// stands.
    #[test]
    fn a_verdict_that_depends_on_line_order_is_no_verdict() {
        let text = "{\"sincro_trace\":1,\"nodes\":2}\n\
             {\"id\":0,\"t_ns\":5,\"node\":0,\"kind\":{\"type\":\"observe\",\"obs\":{\"user\":{\"kind\":\"a\"}}}}\n\
             {\"id\":1,\"t_ns\":5,\"node\":1,\"kind\":{\"type\":\"observe\",\"obs\":{\"user\":{\"kind\":\"b\"}}}}\n";
        let t = Trace::read_jsonl(text.as_bytes()).unwrap();
        let build = || -> Result<Vec<Box<dyn Checker>>, String> {
            Ok(vec![Box::new(Primaries), Box::new(NodeZeroFirst(None))])
        };
        let v = judge_trace(&t, 10, &mut build().unwrap());
        assert!(v.is_pass(), "{v}");
        match unless_order_dependent(&t, 10, v, &build).unwrap() {
            Verdict::Unjudged { property, reason } => {
                assert_eq!(property, "node_zero_first");
                assert!(
                    reason.contains("pass as written, violation:node_zero_first with"),
                    "{reason}"
                );
            }
            v => panic!("{v}"),
        }
        let fair = || -> Result<Vec<Box<dyn Checker>>, String> { Ok(vec![Box::new(Primaries)]) };
        let v = unless_order_dependent(&t, 10, Verdict::Pass, &fair).unwrap();
        assert!(v.is_pass(), "{v}");
    }

    /// Forbids an observation of kind `b`, and declares it reads the interest it is given.
    struct NoB(sincro_harness::Interest);

    impl Checker for NoB {
        fn property(&self) -> &'static str {
            "no_b"
        }
        fn on_event(&mut self, e: &Event) -> Result<(), Violation> {
            match &e.kind {
                EventKind::Observe { obs } if obs.as_user().is_some_and(|(k, _)| k == "b") => {
                    Err(Violation {
                        property: "no_b".into(),
                        class: sincro_harness::PropertyClass::Safety,
                        explanation: "a b".into(),
                        t_ns: e.t_ns,
                        events: vec![e.id],
                    })
                }
                _ => Ok(()),
            }
        }
        fn finish(&mut self, _: u64) -> Result<(), Violation> {
            Ok(())
        }
        fn evidence(&self) -> &'static [&'static str] {
            &[]
        }
        fn interest(&self) -> sincro_harness::Interest {
            self.0
        }
        fn wake_at_ns(&self) -> u64 {
            u64::MAX
        }
    }

    /// A checker of one's own that leaves the kind it judges out of its `interest()` would
    /// miss it online: `check` could not judge with it, naming it and both verdicts (the
    /// trace's violation would be a pass in a run); declaring the kind, the violation stands.
    #[test]
    fn a_verdict_that_depends_on_the_gate_is_no_verdict() {
        use sincro_harness::Interest;
        let text = "{\"sincro_trace\":1,\"nodes\":1}\n\
             {\"id\":0,\"t_ns\":5,\"node\":0,\"kind\":{\"type\":\"observe\",\"obs\":{\"user\":{\"kind\":\"b\"}}}}\n";
        let t = Trace::read_jsonl(text.as_bytes()).unwrap();
        let blind = || -> Result<Vec<Box<dyn Checker>>, String> {
            Ok(vec![Box::new(Primaries), Box::new(NoB(Interest::TIMER))])
        };
        let v = judge_trace(&t, 10, &mut blind().unwrap());
        assert_eq!(v.label(), "violation:no_b");
        match unless_judging_dependent(&t, 10, v, &blind).unwrap() {
            Verdict::Unjudged { property, reason } => {
                assert_eq!(property, "no_b");
                assert!(
                    reason.contains(
                        "violation:no_b at event 0 with every event, pass with only the events \
                         of its `interest()`"
                    ),
                    "{reason}"
                );
            }
            v => panic!("{v}"),
        }
        let seeing = || -> Result<Vec<Box<dyn Checker>>, String> {
            Ok(vec![Box::new(NoB(Interest::OBSERVE))])
        };
        let v = judge_trace(&t, 10, &mut seeing().unwrap());
        let v = unless_judging_dependent(&t, 10, v, &seeing).unwrap();
        assert_eq!(v.label(), "violation:no_b");
    }

    fn trace(kind: &str) -> Trace {
        let text = format!(
            "{{\"sincro_trace\":1,\"nodes\":1}}\n\
             {{\"id\":0,\"t_ns\":0,\"node\":0,\"kind\":{{\"type\":\"observe\",\"obs\":{{\"user\":{{\"kind\":\"{kind}\"}}}}}}}}\n"
        );
        Trace::read_jsonl(text.as_bytes()).unwrap()
    }

    /// A user's checker declares the kinds it reads (`Checker::evidence`): a pass over a trace
    /// with none of them judged nothing, as for a built-in property.
    #[test]
    fn a_users_checker_with_no_evidence_in_the_trace_could_not_judge() {
        let checkers: Vec<Box<dyn Checker>> = vec![Box::new(Primaries)];
        let none = unless_vacuous(&trace("primary_up"), &checkers, Verdict::Pass, "trace");
        assert!(
            matches!(&none, Verdict::Unjudged { property, .. } if property == "at_most_one_primary"),
            "{none}"
        );
        let some = unless_vacuous(&trace("primary_on"), &checkers, Verdict::Pass, "trace");
        assert_eq!(some, Verdict::Pass);
    }
}
