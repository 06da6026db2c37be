//! `sincro explore`: bounded exhaustive exploration of one small scenario (see
//! [`sincro_harness::explore`]), and `sincro explore --replay FILE` to print a counterexample's
//! trace.

use crate::algorithms::{self, Algorithm};
use crate::exit;
use crate::harness::engine::explore::Bounds;
use crate::harness::explore::{ExploreOptions, ScheduleFile, Stop};
use crate::harness::fault::{FaultClass, FaultModel, TimedFault};
use crate::harness::gen::GenOptions;
use crate::harness::{Fault, Scenario};
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of `sincro explore`.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
What is explored: the scenario's messages are in flight over a delivery window [min, max] \
of their link's latency; every order of the events the windows allow is tried (timers at \
their deadline, inputs at their time; --untimed drops the windows), plus up to --loss lost \
and --dup duplicated messages, --crashes crashes and --pauses pauses (at whole ms) before \
--faults-until-ms; at one instant events come in the native engine's queue order, so a \
counterexample is also written as a native scenario that `run` replays. States are \
fingerprinted (per-node event histories + messages in flight) and sleep sets skip \
re-executing commuting orders. The search is breadth first: a counterexample is a shortest \
one. Paths cut by --depth are never counted as passing.

Exit codes: 0 no violation within the bounds, 1 a violation (or a panic) was found and \
written to --out (the schedule, and the native scenario <alg>.<variant>.explore.native.json), \
2 bad input, 4 no answer: some paths ended at the scenario's own run limits (`limits`) and \
were not judged, 6 no violation but a checker could not judge some complete paths (the scenario \
ends before a property's bound; or every property asked for is judged against a liveness \
bound and no path reached the scenario's end), or the time or state bound ended the search \
before it finished depth 1 (nothing was explored), 130 Ctrl-C, SIGTERM or SIGHUP (what was explored is \
reported).

Example: sincro explore -a mutex.ricart-agrawala --variant no-tiebreak --seed 1 (a counterexample of 11 choices)")]
#[command(group(clap::ArgGroup::new("what").required(true).args(["algorithm", "scenario", "replay"])))]
pub struct ExploreArgs {
    /// The algorithm (its scenario is generated from --seed, --nodes, --inputs, --active-ms).
    #[arg(long, short)]
    algorithm: Option<String>,
    /// Variant to explore [default: the first, the correct one; with --scenario: the file's, and
    /// this replaces it].
    #[arg(long)]
    variant: Option<String>,
    /// Node count of the generated scenario (not with --scenario: the file has its own).
    #[arg(long, default_value_t = 3, conflicts_with = "scenario")]
    nodes: usize,
    /// Seed of the generated scenario (its workload and latencies' clocks).
    #[arg(long, default_value_t = 0, conflicts_with = "scenario")]
    seed: u64,
    /// Keep only the first K workload inputs of the generated scenario.
    #[arg(
        long,
        value_name = "K",
        default_value_t = DEFAULT_INPUTS,
        conflicts_with = "scenario"
    )]
    inputs: usize,
    /// Length of the generated scenario's active phase (the workload falls in it), ms.
    #[arg(long, default_value_t = 20, conflicts_with = "scenario")]
    active_ms: u64,
    /// Explore this scenario file instead of a generated one.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["algorithm", "replay"])]
    scenario: Option<PathBuf>,
    /// Longest path explored, in choices (events).
    #[arg(long, default_value_t = 40)]
    depth: usize,
    /// Most distinct states (the search also stops when its own tables reach 1 GiB, however
    /// many states that is).
    #[arg(long, value_name = "N", default_value_t = 1_000_000)]
    max_states: u64,
    /// Wall-time budget, e.g. 60s, 5m.
    #[arg(long, value_name = "DURATION", value_parser = crate::fuzz::parse_duration, default_value = "60s")]
    time: Duration,
    /// Untimed semantics: messages lose their latest delivery time, so any message past its
    /// earliest time may come next however late (asynchrony; timeouts misfire, so only for
    /// algorithms whose fault model allows that). Timers and inputs still come at their times.
    #[arg(long)]
    untimed: bool,
    /// Messages the search may lose [default: 1 if the fault model tolerates loss, else 0].
    #[arg(long, value_name = "N")]
    loss: Option<u32>,
    /// Messages the search may duplicate [default: 1 if the model tolerates duplication, else 0].
    #[arg(long, value_name = "N")]
    dup: Option<u32>,
    /// Crashes the search may inject (restarts too when the model has crash-recovery). A
    /// complete path that leaves more of them down when the faults end than the model lets
    /// stay down for good (none with crash-recovery, one with crash-stop) is not judged for
    /// liveness (counted as unjudged), as a node paused past the end is not.
    #[arg(long, value_name = "N", default_value_t = 0)]
    crashes: u32,
    /// Pauses the search may inject, each ended by a resume the search places [default: 1 if
    /// the fault model tolerates pauses, else 0].
    #[arg(long, value_name = "N")]
    pauses: Option<u32>,
    /// Injected faults only before this time, ms [default: --active-ms; with --scenario, 1 ms
    /// past the file's last input or planned fault]; liveness is judged from it (a heal is
    /// added to the scenario's fault plan there). Refused when no fault is injected.
    #[arg(long, value_name = "MS")]
    faults_until_ms: Option<u64>,
    /// Allow injected faults outside the algorithm's fault model.
    #[arg(long)]
    beyond_model: bool,
    /// Disable the sleep-set reduction (for measuring it).
    #[arg(long)]
    no_sleep_sets: bool,
    /// Directory for the counterexample (`<alg>.<variant>.explore.json`).
    #[arg(long, default_value = "failures")]
    out: PathBuf,
    /// Replay a counterexample file written by explore and print its trace.
    #[arg(long, value_name = "FILE", conflicts_with_all = [
        "algorithm", "variant", "nodes", "seed", "inputs", "active_ms", "scenario", "depth",
        "max_states", "time", "untimed", "loss", "dup", "crashes", "pauses", "faults_until_ms",
        "beyond_model", "no_sleep_sets", "out",
    ])]
    replay: Option<PathBuf>,
}

/// The most nodes an explored scenario may have: the state space grows as the factorial of
/// the events in flight, so exploration is for small configurations.
pub const MAX_NODES: usize = 16;

/// Where injected faults stop for a scenario file, unless `--faults-until-ms` says: 1 ms past
/// its last input or planned fault (what the file makes happen), within its duration.
pub fn default_faults_until_ms(sc: &Scenario) -> u64 {
    sc.last_planned_ms().saturating_add(1).min(sc.duration_ms)
}

/// The small scenario `sincro explore -a ALG` explores: generated from `seed` for `nodes`
/// nodes with no fault beyond delays, an active phase of `active_ms`, and only its first
/// `--inputs` when not given.
const DEFAULT_INPUTS: usize = 2;

/// `inputs` workload inputs.
pub fn small_scenario(
    alg: &dyn Algorithm,
    variant: &str,
    nodes: usize,
    seed: u64,
    inputs: usize,
    active_ms: u64,
) -> Scenario {
    let opts = GenOptions {
        nodes_min: nodes,
        nodes_max: nodes,
        active_ms,
        only: Some(FaultClass::Delays),
        ..GenOptions::default()
    };
    let mut sc = alg.generate(variant, seed, &opts);
    sc.workload.truncate(inputs);
    sc
}

fn bad_input(msg: impl std::fmt::Display) -> i32 {
    eprintln!("error: {}", crate::cli::for_program(&msg.to_string()));
    exit::BAD_INPUT
}

/// The variant explored when none is named: the algorithm's first, the correct one by
/// convention, whatever its name (`correct` was assumed, and a spec whose first variant is
/// `textbook` could not be explored without `--variant`).
fn first_variant(alg: &dyn Algorithm) -> &'static str {
    alg.info().variants.first().map_or("correct", |v| v.name)
}

/// `Ok` when `alg` has a variant named `variant`, else the error naming the known ones.
fn known_variant(alg: &dyn Algorithm, variant: &str) -> Result<(), String> {
    let info = alg.info();
    if info.variants.iter().any(|v| v.name == variant) {
        return Ok(());
    }
    let known: Vec<_> = info.variants.iter().map(|v| v.name).collect();
    Err(crate::algorithms::unknown_variant(
        variant, info.name, &known,
    ))
}

/// Runs `sincro explore`.
pub fn main(a: &ExploreArgs) -> i32 {
    if let Some(path) = &a.replay {
        return replay(path);
    }
    let (alg, mut sc): (&dyn Algorithm, Scenario) = match (&a.scenario, &a.algorithm) {
        (Some(path), _) => match Scenario::load(path) {
            Ok(mut sc) => match algorithms::find(&sc.algorithm) {
                Ok(_) if sc.nodes > MAX_NODES => {
                    return bad_input(format!(
                        "{}: {} nodes: exploration is for small configurations (1..={MAX_NODES})",
                        path.display(),
                        sc.nodes
                    ))
                }
                Ok(alg) => {
                    if let Some(v) = &a.variant {
                        if let Err(e) = known_variant(alg, v) {
                            return bad_input(format!("{}: {e}", path.display()));
                        }
                        sc.variant = v.clone();
                    }
                    (alg, sc)
                }
                Err(e) => return bad_input(format!("{}: {e}", path.display())),
            },
            Err(e) => return bad_input(e),
        },
        (None, Some(name)) => {
            let alg = match algorithms::find(name) {
                Ok(alg) => alg,
                Err(e) => return bad_input(e),
            };
            let variant = a.variant.as_deref().unwrap_or(first_variant(alg));
            if let Err(e) = known_variant(alg, variant) {
                return bad_input(e);
            }
            if a.nodes == 0 || a.nodes > MAX_NODES {
                return bad_input(format!(
                    "--nodes {} is out of range: exploration is for small configurations \
                     (1..={MAX_NODES})",
                    a.nodes
                ));
            }
            // The faults end with the phase, and the run lasts 1 ms past them: within the
            // limit on any time (at the limit itself, --faults-until-ms, never given, was
            // blamed).
            let most = crate::harness::MAX_TIME_MS - 1;
            if a.active_ms == 0 || a.active_ms > most {
                return bad_input(format!(
                    "--active-ms = {} is outside 1 ..= {most} ms",
                    a.active_ms
                ));
            }
            let sc = small_scenario(alg, variant, a.nodes, a.seed, a.inputs, a.active_ms);
            // The algorithm adds its own time past the phase (a clock run's convergence): near
            // the top of the range that passes the limit on any time, which the scenario's
            // `duration_ms` was blamed for (stop 74's probe); the flag is named.
            if let Err(e) = sc.validate() {
                return bad_input(format!(
                    "--active-ms = {}: the scenario {} generates for it is refused ({e}); give                      a shorter --active-ms",
                    a.active_ms, sc.algorithm
                ));
            }
            if sc.nodes != a.nodes {
                // As `fuzz` says it: the count explored is not the one asked for.
                println!(
                    "note: {} needs at least {} nodes: exploring {} (not --nodes {})",
                    sc.algorithm,
                    alg.nodes_min(),
                    sc.nodes,
                    a.nodes
                );
            }
            if sc.workload.len() < a.inputs && a.inputs != DEFAULT_INPUTS {
                // --inputs keeps the first K: fewer there are fewer explored, said so.
                println!(
                    "note: the generated workload (seed {}, --active-ms {}) has {} input(s): \
                     exploring those, not --inputs {} (another --seed or a longer --active-ms \
                     draws more)",
                    a.seed,
                    a.active_ms,
                    sc.workload.len(),
                    a.inputs
                );
            }
            (alg, sc)
        }
        (None, None) => return bad_input("give --algorithm, --scenario or --replay"),
    };
    if a.depth == 0 || a.max_states == 0 {
        return bad_input("--depth and --max-states must be at least 1");
    }
    let info = alg.info();
    let mut model = info.fault_model.tolerates.clone();
    model.extend(alg.bug_classes(&sc.variant));
    let allows = |c: FaultClass| model.contains(&c);
    let auto = |c: FaultClass| u32::from(allows(c));
    let loss = a.loss.unwrap_or_else(|| auto(FaultClass::Loss));
    let dup = a.dup.unwrap_or_else(|| auto(FaultClass::Duplication));
    let pauses = a.pauses.unwrap_or_else(|| auto(FaultClass::Pauses));
    if !a.beyond_model {
        for (n, class, flag) in [
            (loss, FaultClass::Loss, "--loss"),
            (dup, FaultClass::Duplication, "--dup"),
            (a.crashes, FaultClass::CrashStop, "--crashes"),
            (pauses, FaultClass::Pauses, "--pauses"),
        ] {
            let ok =
                allows(class) || (class == FaultClass::CrashStop && allows(FaultClass::Crashes));
            if n > 0 && !ok {
                // `--crashes` stands for both crash classes, and neither is tolerated.
                let what = if class == FaultClass::CrashStop {
                    format!(
                        "crashes of any kind ({} nor {})",
                        class.name(),
                        FaultClass::Crashes.name()
                    )
                } else {
                    class.name().to_string()
                };
                return bad_input(format!(
                    "{flag} {n}: {} does not tolerate {what} ({}); add --beyond-model to \
                     explore outside its fault model",
                    info.name, info.fault_model.summary
                ));
            }
        }
    }
    // Added in u64: four u32 counts near u32::MAX wrapped to 0 and turned every fault off.
    let injected = [loss, dup, a.crashes, pauses]
        .iter()
        .map(|&k| u64::from(k))
        .sum::<u64>()
        > 0;
    let faults_until_ms = a.faults_until_ms.unwrap_or_else(|| match a.scenario {
        Some(_) => default_faults_until_ms(&sc),
        None => a.active_ms,
    });
    // Checked whether or not faults are injected: a value out of range is refused either way.
    // The heal at that time and a run 1 ms past it must fit the limit on any time.
    if faults_until_ms >= crate::harness::MAX_TIME_MS {
        return bad_input(format!(
            "--faults-until-ms = {faults_until_ms} is outside [0, {}] ms (the run lasts 1 ms \
             past it, within the limit on any time)",
            crate::harness::MAX_TIME_MS - 1
        ));
    }
    if !injected {
        if let Some(ms) = a.faults_until_ms {
            // Nothing injected: no faulty phase for it to end, and no heal to judge from.
            return bad_input(format!(
                "--faults-until-ms = {ms}: no fault is injected (--loss {loss} --dup {dup} \
                 --crashes {} --pauses {pauses}), so there is no faulty phase for it to end and \
                 liveness is judged from the scenario's own faults; drop it, or allow a fault",
                a.crashes
            ));
        }
    }
    if injected {
        // Liveness is judged from the end of the faults: tell the checkers where that is.
        sc.faults.push(TimedFault {
            at_ms: faults_until_ms,
            fault: Fault::Heal,
        });
        sc.duration_ms = sc.duration_ms.max(faults_until_ms + 1);
    }
    let options = ExploreOptions {
        bounds: Bounds {
            timed: !a.untimed,
            loss,
            duplicate: dup,
            crashes: a.crashes,
            restarts: allows(FaultClass::Crashes) || a.beyond_model,
            // Inside the model, crashed nodes are back when the faults end, except one gone
            // for good where crash-stop is tolerated (as a generated scenario has at most).
            crash_stops: if a.beyond_model {
                u32::MAX
            } else {
                let stop_model = FaultModel {
                    tolerates: model.clone(),
                    ..info.fault_model.clone()
                };
                u32::from(stop_model.crash_stop_allowed(sc.nodes))
            },
            pauses,
            faults_until_ns: if injected {
                faults_until_ms * crate::harness::NS_PER_MS
            } else {
                0
            },
        },
        max_depth: a.depth,
        max_states: a.max_states,
        max_time: Some(a.time),
        max_bytes: crate::harness::explore::MAX_SEARCH_BYTES,
        sleep_sets: !a.no_sleep_sets,
        // Ctrl-C ends the search as its time budget does: what it explored is reported.
        stop: Some(crate::cli::interrupt_flag()),
    };
    // Where a counterexample goes is checked before the search: one found is never lost to
    // an output that cannot be written.
    if let Err(e) = crate::fuzz::probe_dir(&a.out) {
        return bad_input(format!("--out: {e}"));
    }
    // Re-exploring a counterexample in its own folder would replace it with the new one.
    if let Some(input) = &a.scenario {
        let (path, native_path) = counterexample_paths(&a.out, &sc);
        if let Some(out) = [path, native_path]
            .iter()
            .find(|out| crate::same_file(out, input))
        {
            return bad_input(format!(
                "--scenario {} is where this search writes its counterexample ({}): it would \
                 be lost; give --out another folder, or copy the scenario elsewhere first",
                input.display(),
                out.display()
            ));
        }
    }
    let refused = |e: crate::harness::ScenarioError| {
        bad_input(match &a.scenario {
            Some(path) => format!("{}: {e}", path.display()),
            None => e.to_string(),
        })
    };
    // A refusal (an algorithm with no Spec, params it rejects) comes before the header says
    // the search started: where building the checkers fails, the search is asked first, and
    // refuses at once in the algorithm's own words.
    if let Err(e) = crate::harness::engine::explore::explorable(&sc) {
        return refused(e);
    }
    let early = match alg.checkers(&sc) {
        Ok(_) => None,
        Err(_) => match alg.explore(&sc, &options) {
            Ok(r) => Some(r),
            Err(e) => return refused(e),
        },
    };
    println!(
        "exploring {} / {}: {} nodes, {} input{}, {} semantics, loss {} dup {} crashes {} \
         pauses {}, depth {}, {} states, {:?}",
        sc.algorithm,
        sc.variant,
        sc.nodes,
        sc.workload.len(),
        if sc.workload.len() == 1 { "" } else { "s" },
        if a.untimed { "untimed" } else { "timed" },
        loss,
        dup,
        a.crashes,
        pauses,
        a.depth,
        a.max_states,
        a.time
    );
    let report = match early.map_or_else(|| alg.explore(&sc, &options), Ok) {
        Ok(r) => r,
        // A scenario the algorithm refuses (its params) is named, as `run` names it.
        Err(e) => return refused(e),
    };
    // A counterexample is written before anything about it is printed: a reader that goes
    // away (`| head`) ends the program at its next write, and the files must exist by then.
    let written = match &report.counterexample {
        Some(cx) => match write_counterexample(a, &sc, &options, cx) {
            Ok(w) => Some(w),
            Err(e) => {
                // The output went away during the search: what was found is printed.
                println!("{report}");
                for (i, c) in cx.schedule.iter().enumerate() {
                    println!("  {:>3}. {c}", i + 1);
                }
                return bad_input(e);
            }
        },
        None => None,
    };
    println!("{report}");
    let (Some(cx), Some((path, native_path))) = (&report.counterexample, written) else {
        // Only of a search that went everywhere its bounds allow: one cut by time or states
        // may simply not have got to a fault (`--time 1ns` gave this note of nothing).
        let complete = matches!(
            report.stop,
            Stop::Exhausted | Stop::DepthBound | Stop::RunLimit
        );
        if injected && report.fault_choices == 0 && complete {
            // The budget was never spent: the claim above is about a fault-free search.
            println!(
                "note: no fault was ever injected: no message was in flight and no node could \
                 be crashed or paused before the faults end at {faults_until_ms} ms{}; so \
                 --loss {loss} --dup {dup} --crashes {} --pauses {pauses} explored nothing \
                 more (widen the fault window with --faults-until-ms)",
                if a.faults_until_ms.is_none() && a.scenario.is_some() {
                    " (by default, 1 ms past the file's last input or planned fault)"
                } else {
                    ""
                },
                a.crashes
            );
        }
        return no_counterexample(&report, &judged_at_the_end_only(&info, &sc));
    };
    for (i, c) in cx.schedule.iter().enumerate() {
        println!("  {:>3}. {c}", i + 1);
    }
    if a.untimed && !replays_timed(alg, &sc, &options.bounds, &cx.schedule) {
        println!(
            "  note: this schedule takes a message after its link's latest latency (it does \
             not replay under timed semantics): it is a violation only where {} lets messages \
             be that late (its fault model: {})",
            info.name, info.fault_model.summary
        );
    }
    println!(
        "  counterexample: {} (replay: {} explore --replay {})",
        path.display(),
        crate::program_name(),
        crate::shell_word(&path)
    );
    match native_path {
        Some(native_path) => println!(
            "  as a native scenario: {} (replay: {})",
            native_path.display(),
            crate::replay_command(&native_path, None)
        ),
        None => println!("  (no native scenario: untimed semantics has no native run)"),
    }
    debug_assert_eq!(report.stop, Stop::Violation);
    exit::VIOLATION
}

/// The exit code of a search that found no counterexample, after saying why when it is not a
/// pass.
///
/// `end_only` names the properties judged, when every one of them is judged against a liveness
/// bound or only from a late time ([`JUDGED_FROM_A_TIME`]): a path cut before the run's end can
/// break one but never meet it, so a search in which no path ran to the end judged nothing.
fn no_counterexample(report: &crate::harness::explore::ExploreReport, end_only: &[String]) -> i32 {
    if report.stop == Stop::Interrupted {
        // The depth every path was explored to is a bound, if not the one asked for (it
        // said "which is no bound" under a line giving that depth).
        println!(
            "INTERRUPTED ({}): no violation within depth {}, the depth the interrupt left \
             complete, not the bound asked for (exit {})",
            crate::stop::cause(),
            report.depth_complete,
            crate::fuzz::INTERRUPTED_EXIT
        );
        return crate::fuzz::INTERRUPTED_EXIT;
    }
    if report.stop != Stop::Exhausted && report.depth_complete == 0 {
        // Cut before a single level was explored (`--time 1ns`): no bound was searched,
        // so "no violation within the bound" would claim what was never looked at.
        println!("NOTHING EXPLORED: give the search more (--time, --max-states)");
        return exit::UNJUDGED;
    }
    if report.complete.is_empty() && !end_only.is_empty() {
        // The prefixes of cut paths were judged, but the properties asked for are all judged
        // at a run's end: "safety only" here is nothing at all.
        println!(
            "NOTHING JUDGED: {} {} judged against a liveness bound or only from a late time \
             (the quiet time, a convergence time), which a path cut before the run's end need \
             not reach, and no path reached the end (raise --depth, or shorten the scenario)",
            end_only.join(", "),
            if end_only.len() == 1 { "is" } else { "are" }
        );
        return exit::UNJUDGED;
    }
    if report.limited > 0 {
        // Paths cut by the scenario's own limits were never judged: no answer about them.
        return exit::LIMIT;
    }
    // "Could not judge" is never a pass: a path a checker could not judge is no answer.
    if report.could_not_judge().is_empty() {
        exit::PASS
    } else {
        exit::UNJUDGED
    }
}

/// Properties judged only from a time a short path need not reach: `bounded_skew` from its
/// convergence time, `leader_stability` and `leader_validity` once the faults stop. A search
/// whose paths were all cut before the end passed them on nothing (stop 69's probe: exit 0,
/// "no violation within the bound", for `bounded_skew` judged from 84 s on depth-3 paths).
const JUDGED_FROM_A_TIME: [&str; 3] = ["bounded_skew", "leader_stability", "leader_validity"];

/// The properties the scenario's run judges (its `checks.properties`, else every one the
/// algorithm promises) when every one of them is judged against a liveness bound ([`crate::checkers::needs_liveness_bound`]); empty when one is judged
/// event by event (a safety property, or a user's property, whose class is not known here).
fn judged_at_the_end_only(info: &algorithms::AlgorithmInfo, sc: &Scenario) -> Vec<String> {
    let judged: Vec<String> = match &sc.checks.properties {
        Some(p) => p.clone(),
        None => info.properties.iter().map(|p| p.to_string()).collect(),
    };
    if judged.iter().all(|p| {
        crate::checkers::needs_liveness_bound(p) || JUDGED_FROM_A_TIME.contains(&p.as_str())
    }) {
        judged
    } else {
        Vec::new()
    }
}

/// Whether `schedule`, found under untimed semantics, also replays under timed semantics
/// (every message within its link's latency window).
fn replays_timed(
    alg: &dyn Algorithm,
    sc: &Scenario,
    bounds: &Bounds,
    schedule: &[crate::harness::engine::explore::Choice],
) -> bool {
    let timed = Bounds {
        timed: true,
        ..*bounds
    };
    alg.replay_schedule(sc, &timed, schedule).is_ok()
}

/// Where a counterexample of `sc` goes in the folder `out`: its schedule file and its native
/// scenario.
fn counterexample_paths(out: &std::path::Path, sc: &Scenario) -> (PathBuf, PathBuf) {
    let name = format!("{}.{}.explore", sc.algorithm, sc.variant);
    (
        out.join(format!("{name}.json")),
        out.join(format!("{name}.native.json")),
    )
}

/// Writes the counterexample file and, when there is one, its native scenario (removing a
/// native scenario an earlier search left under the same name, which would describe another
/// execution); their paths.
fn write_counterexample(
    a: &ExploreArgs,
    sc: &Scenario,
    options: &ExploreOptions,
    cx: &crate::harness::explore::Counterexample,
) -> Result<(PathBuf, Option<PathBuf>), String> {
    let unwritten = " (the counterexample above was not written)";
    crate::fuzz::create_dir_all(&a.out)
        .map_err(|e| format!("cannot create {}: {e}{unwritten}", a.out.display()))?;
    let (path, native_path) = counterexample_paths(&a.out, sc);
    let file = ScheduleFile {
        scenario: sc.clone(),
        bounds: options.bounds,
        schedule: cx.schedule.clone(),
        verdict: cx.verdict.clone(),
    };
    let text = serde_json::to_string_pretty(&file).expect("a schedule file serializes");
    // Replaced whole, as a failure file is: a failed write leaves the old file or none (it
    // left an empty one, and wrote through a symlink to whatever it named).
    crate::fuzz::write_atomically(&path, &text)
        .map_err(|e| format!("cannot write {}: {e}{unwritten}", path.display()))?;
    let Some(native) = &cx.native else {
        match std::fs::remove_file(&native_path) {
            Ok(()) => eprintln!(
                "note: removed {}, an earlier search's native scenario (this counterexample \
                 has none)",
                native_path.display()
            ),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(format!(
                    "cannot remove the stale {}: {e} (the counterexample above was written to \
                     {}, but the stale file would be taken for its native scenario)",
                    native_path.display(),
                    path.display()
                ))
            }
        }
        return Ok((path, None));
    };
    let text = serde_json::to_string_pretty(native).expect("a scenario serializes");
    crate::fuzz::write_atomically(&native_path, &text).map_err(|e| {
        // An earlier search's file under that name would be taken for this one's.
        let _ = std::fs::remove_file(&native_path);
        format!(
            "cannot write {}: {e} (the counterexample above was written to {}, for `sincro \
             explore --replay`; its native scenario was not)",
            native_path.display(),
            path.display()
        )
    })?;
    Ok((path, Some(native_path)))
}

fn replay(path: &std::path::Path) -> i32 {
    use crate::harness::scenario;
    // Read as a scenario file is: bounded in bytes and in JSON values, no key given twice
    // (it read any file whole, and let the last of two equal keys win).
    let text = match scenario::read_limited(path, scenario::MAX_SCENARIO_BYTES) {
        Ok(t) => t,
        Err(e) => return bad_input(format!("cannot read {}: {e}", path.display())),
    };
    if let Err(e) =
        scenario::check_json_size(&text).and_then(|()| scenario::check_no_duplicate_keys(&text))
    {
        return bad_input(format!("{}: {e}", path.display()));
    }
    let mut file: ScheduleFile = match serde_json::from_str(&text) {
        Ok(f) => f,
        Err(e) => {
            return bad_input(format!(
                "{} is not a schedule file of explore: {e}",
                path.display()
            ))
        }
    };
    if let Err(e) = file.scenario.validate() {
        return bad_input(format!("{}: {e}", path.display()));
    }
    // As a search's own scenario is (an edited file of 10,000 nodes replayed for minutes:
    // the explorer's world weighs every event in flight at each choice).
    if file.scenario.nodes > MAX_NODES {
        return bad_input(format!(
            "{}: {} nodes: exploration is for small configurations (1..={MAX_NODES}); a \
             schedule file explore wrote has at most that many",
            path.display(),
            file.scenario.nodes
        ));
    }
    // In time order, as a scenario file's plan is read (`Scenario::from_json`).
    file.scenario.faults.sort_by_key(|f| f.at_ms);
    let alg = match algorithms::find(&file.scenario.algorithm) {
        Ok(a) => a,
        Err(e) => return bad_input(format!("{}: {e}", path.display())),
    };
    let out = match alg.replay_schedule(&file.scenario, &file.bounds, &file.schedule) {
        Ok(o) => o,
        Err(e) => return bad_input(format!("{}: {e}", path.display())),
    };
    if let Err(e) = crate::cli::print_timeline(&out) {
        return bad_input(format!("cannot write to standard output: {e}"));
    }
    println!(
        "{} / {} (explore schedule of {} choices): {}",
        file.scenario.algorithm,
        file.scenario.variant,
        file.schedule.len(),
        out.verdict
    );
    if out.verdict != file.verdict {
        // Said outright (a bare note read as a detail): the file was edited, or another build
        // of the algorithm wrote it.
        println!(
            "  NOT the recorded verdict: the file records {}, and its schedule replays to {} \
             (the file was edited, or another build wrote it)",
            file.verdict.label(),
            out.verdict.label()
        );
    }
    crate::exit_code(&out.verdict)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::spec::{Spec, Timed};
    use crate::harness::fault::FaultModel;
    use crate::harness::{Ctx, NodeId, Process, SimRng};

    crate::algorithms::variants! {
        /// Named otherwise than `correct`.
        pub enum Named {
            Textbook = "textbook", "the textbook algorithm";
            Broken = "broken" (buggy), "a twin";
        }
    }

    struct Idle;
    impl Process for Idle {
        type Msg = ();
        type Timer = ();
        type Input = ();
        type Stable = ();
        fn on_message(&mut self, _: &mut Ctx<'_, Self>, _: NodeId, _: ()) {}
        fn on_input(&mut self, _: &mut Ctx<'_, Self>, _: ()) {}
    }

    #[derive(Clone)]
    struct NamedSpec;
    impl Spec for NamedSpec {
        type Node = Idle;
        type Params = ();
        type Variant = Named;
        fn name(&self) -> &'static str {
            "test.named"
        }
        fn properties(&self) -> Vec<&'static str> {
            vec![]
        }
        fn fault_model(&self) -> FaultModel {
            FaultModel::default()
        }
        fn node(&self, _: Named, _: &(), _: NodeId) -> Idle {
            Idle
        }
        fn workload(&self, _: &mut SimRng, _: usize, _: u64) -> Vec<Timed<()>> {
            vec![]
        }
    }

    #[test]
    fn the_variant_explored_by_default_is_the_first() {
        assert_eq!(first_variant(&NamedSpec), "textbook");
        let mutex = crate::algorithms::find("mutex.centralized").unwrap();
        assert_eq!(first_variant(mutex), "correct");
    }
}
