//! `sincro shrink`: shrink a failing scenario file, as `fuzz` shrinks the failures it finds.
//!
//! For a failure written with `--no-shrink` (a long campaign that wanted speed), one from
//! another engine or from `explore`, or a scenario written by hand: the file is run, and if it
//! fails, shrunk to a smaller scenario that fails the same way ([`fuzz::shrink_scenario`]),
//! written next to it as `<name>.shrunk.json` (or `--out`).

use super::{bad_input, interrupt_flag, scenario_line, shrink_options, Engine};
use crate::algorithms;
use crate::exit;
use crate::fuzz::{self, write_output};
use crate::harness::engine::RunOptions;
use crate::harness::shrink::ScenarioSize;
use crate::harness::Scenario;
use sincro_harness::scenario::{shown, shown_text};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// Options of `sincro shrink`.
#[derive(clap::Args)]
pub(super) struct ShrinkArgs {
    /// The failing scenario JSON file (a fuzz failure, a counterexample, one of your own).
    scenario: PathBuf,
    /// Write the shrunk scenario to this file [default: next to the input, `<name>.shrunk.json`].
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Run on this engine instead of the one the scenario names.
    #[arg(long, value_enum)]
    engine: Option<Engine>,
    /// At most this many candidate runs [default: the shrinker's, 2000].
    #[arg(long, value_name = "N")]
    shrink_runs: Option<usize>,
    /// At most this long (e.g. `30s`, `2m`); the smallest scenario verified by then is written.
    #[arg(long, value_name = "DURATION", value_parser = fuzz::parse_duration, default_value = "60s")]
    shrink_time: Duration,
}

/// The default output: `dir/name.shrunk.json` for `dir/name.json` (any other name gets
/// `.shrunk.json` appended).
/// The name is kept as its bytes: a lossy rendering wrote `�.shrunk.json` for any name that
/// is not UTF-8, so two such inputs overwrote one file (stop 57).
fn default_out(input: &Path) -> PathBuf {
    let name = input.file_name().unwrap_or_default();
    let stem = name
        .to_str()
        .and_then(|n| n.strip_suffix(".json"))
        .map(std::ffi::OsStr::new)
        .or_else(|| strip_json_bytes(name))
        .unwrap_or(name);
    let mut out = stem.to_os_string();
    out.push(".shrunk.json");
    input.with_file_name(out)
}

/// `name` without a final `.json`, for a name that is not UTF-8 (on Unix).
fn strip_json_bytes(name: &std::ffi::OsStr) -> Option<&std::ffi::OsStr> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        name.as_bytes()
            .strip_suffix(b".json")
            .map(std::ffi::OsStr::from_bytes)
    }
    #[cfg(not(unix))]
    {
        let _ = name;
        None
    }
}

/// `sincro shrink`. Exit 0 when the scenario failed and its shrunk form (or, if nothing
/// smaller fails the same way, the scenario itself) was written; 1 when it does not fail
/// (nothing to shrink); 6 when its run could not be judged (nothing to shrink either: see
/// [`fuzz::shrinkable`]); 2 on bad input or an output that cannot be written; 130 when
/// interrupted (the smallest scenario verified so far is still written).
pub(super) fn main(a: &ShrinkArgs) -> i32 {
    if a.shrink_runs == Some(0) {
        return bad_input("--shrink-runs must be at least 1");
    }
    let mut sc = match Scenario::load(&a.scenario) {
        Ok(sc) => sc,
        Err(e) => return bad_input(e),
    };
    if let Some(e) = a.engine {
        sc.engine = e.into();
    }
    let out_path = a.out.clone().unwrap_or_else(|| default_out(&a.scenario));
    if let Err(e) = crate::refuse_overwrite(
        "--out",
        &out_path,
        &[&a.scenario],
        "the input itself",
        "the failing scenario",
    ) {
        return bad_input(e);
    }
    // The output's folder first: a shrink of a minute is not thrown away at the write.
    if out_path.is_dir() {
        // Named as what it is: the default output when no --out was given (stop 74's probe).
        let what = match a.out {
            Some(_) => format!("--out {}", out_path.display()),
            None => format!("the default output {}", out_path.display()),
        };
        return bad_input(format!(
            "{what} is a directory: give the file to write the shrunk scenario to (--out FILE)"
        ));
    }
    if let Some(dir) = out_path.parent().filter(|d| !d.as_os_str().is_empty()) {
        if let Err(e) = crate::fuzz::create_dir_all(dir) {
            return bad_input(format!("cannot write {}: {e}", out_path.display()));
        }
    }
    // A folder that cannot be written to (`/proc`, read-only) was found after the shrink.
    if let Err(e) = crate::fuzz::probe_output(&out_path) {
        return bad_input(format!("--out: {e}"));
    }
    let alg = match algorithms::find(&sc.algorithm) {
        Ok(alg) => alg,
        Err(e) => return bad_input(format!("{}: {e}", a.scenario.display())),
    };
    // From the start: a Ctrl-C during the first run (a long one on turmoil) ended the process
    // at once, with nothing said; now it stops that run, and says so.
    let stop = interrupt_flag();
    let mut first = match super::noticed_run(&a.scenario, || {
        sincro_harness::engine::stoppable(stop, || {
            algorithms::run_scenario(&sc, RunOptions::new(false))
        })
    }) {
        Ok(o) => o,
        Err(e) => return bad_input(format!("{}: {e}", a.scenario.display())),
    };
    if first.verdict.is_interrupted() {
        eprintln!(
            "interrupted ({}) during the first run of {}: {}; nothing was shrunk or written",
            crate::stop::cause(),
            shown(&a.scenario),
            shown_text(&first.verdict.to_string())
        );
        return crate::fuzz::INTERRUPTED_EXIT;
    }
    // as `run` judges it: a pass on nothing is could-not-judge (nothing to shrink either)
    if let Err(e) = super::unless_nothing_judged(&sc, &mut first) {
        return bad_input(format!("{}: {e}", a.scenario.display()));
    }
    if first.verdict.is_pass() {
        println!("{}", scenario_line(&sc, &"passes: nothing to shrink"));
        return exit::VIOLATION;
    }
    let label = first.verdict.label();
    if let Err(why) = fuzz::shrinkable(&label) {
        println!("{}", scenario_line(&sc, &first.verdict));
        println!("  not shrunk: {why}; nothing was written");
        return crate::exit_code(&first.verdict);
    }
    let before = ScenarioSize::of(&sc);
    eprintln!(
        "shrinking {} ({before}): {} — at most {} candidate runs and {}",
        shown(&a.scenario),
        shown_text(&first.verdict.to_string()),
        shrink_options(a.shrink_runs).max_runs,
        humantime::format_duration(a.shrink_time)
    );
    let started = Instant::now();
    let deadline = started + a.shrink_time;
    let (mut runs, mut shown, mut cut) = (0u64, started, false);
    let mut give_up = || {
        runs += 1;
        let now = Instant::now();
        if now.duration_since(shown) >= Duration::from_secs(5) {
            shown = now;
            eprintln!(
                "[{:>5} s] {runs} candidate runs",
                started.elapsed().as_secs()
            );
        }
        cut |= now >= deadline;
        cut || stop.load(Ordering::Relaxed)
    };
    let result = fuzz::shrink_scenario(
        alg,
        &sc,
        &label,
        &shrink_options(a.shrink_runs),
        &mut give_up,
        Some(stop),
        Some(deadline),
    );
    if let Err(e) = write_output(&out_path, &result.scenario.to_json()) {
        return bad_input(format!("cannot write {}: {e}", out_path.display()));
    }
    let after = ScenarioSize::of(&result.scenario);
    let irreproducible = result.irreproducible.as_ref().map(|why| {
        format!("NONDETERMINISTIC: not shrunk: {why}; the original is written unchanged")
    });
    let how = if let Some(why) = &irreproducible {
        why.as_str()
    } else if after == before && (result.interrupted || result.budget_spent) {
        // cut before it could try them all (or before the original ran again): no claim
        // about the smaller ones
        "not shrunk before it was cut short: the original is written unchanged"
    } else if !result.verified {
        "the smallest candidate did not fail again: the original is written unchanged"
    } else if after == before {
        "no smaller scenario fails the same way"
    } else {
        "shrunk"
    };
    println!("{}", scenario_line(&sc, &first.verdict));
    if sc.expect.is_none() {
        println!(
            "  note: the input has no `expect`; the shrunk file's is {}",
            result
                .scenario
                .expect
                .as_ref()
                .map_or("none (a run limit is no `expect` kind)".to_string(), |e| {
                    e.to_string()
                })
        );
    }
    if let Some(expect) = sc.expect.as_ref().filter(|e| !e.matches(&first.verdict)) {
        // The shrunk file is shrunk to the failure the input has, whatever it expected.
        println!(
            "  note: the input expects {expect}, but it fails this way: the shrunk file keeps \
             this failure, and its `expect` is {}",
            result
                .scenario
                .expect
                .as_ref()
                .map_or("none".to_string(), |e| e.to_string())
        );
    }
    println!(
        "  {how}: {before} -> {after} ({} candidate runs, {} steps, {:.1} s)",
        result.runs,
        result.steps,
        started.elapsed().as_secs_f64()
    );
    if result.verified && after != before {
        // The shrunk scenario's own verdict (the same failure, at its own time and events).
        if let Ok(o) = algorithms::run_scenario(&result.scenario, RunOptions::new(false)) {
            println!(
                "  the shrunk scenario: {}",
                shown_text(&o.verdict.to_string())
            );
        }
    }
    if result.interrupted || result.budget_spent {
        println!(
            "  cut short ({}): the smallest scenario verified by then is written",
            // (a signal sets `stop`; the deadline may end a run inside the shrinker before
            // `give_up` saw it: a 5 ms --shrink-time said "interrupted")
            if result.budget_spent {
                "--shrink-runs reached"
            } else if cut || !stop.load(Ordering::Relaxed) {
                "--shrink-time reached"
            } else {
                "interrupted"
            }
        );
    }
    println!("  written: {}", crate::shell_word(&out_path));
    println!(
        "  replay: {}",
        // the shrunk file names the engine it was shrunk on
        crate::replay_command(&out_path, None)
    );
    if stop.load(Ordering::Relaxed) {
        exit::INTERRUPTED
    } else if irreproducible.is_some() {
        exit::NONDETERMINISM
    } else {
        exit::PASS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_output_sits_next_to_the_input() {
        assert_eq!(
            default_out(Path::new("failures/a.seed3.json")),
            PathBuf::from("failures/a.seed3.shrunk.json")
        );
        assert_eq!(default_out(Path::new("x")), PathBuf::from("x.shrunk.json"));
        // A name that is not UTF-8 keeps its bytes (it became `�.shrunk.json`).
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let input = Path::new(std::ffi::OsStr::from_bytes(b"d/\xff\xfe.json"));
            let out = default_out(input);
            assert_eq!(out.as_os_str().as_bytes(), b"d/\xff\xfe.shrunk.json");
            let other = default_out(Path::new(std::ffi::OsStr::from_bytes(b"d/\xfe.json")));
            assert_ne!(out, other);
        }
    }
}
