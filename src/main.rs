//! The `sincro` command: list, run, replay, fuzz and bench.

use clap::{Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use sincro::algorithms::{self, Algorithm};
use sincro::exit;
use sincro::fuzz::{fuzz_target, FuzzConfig, Target, TargetReport};
use sincro::harness::engine::{install_panic_hook, RunOptions};
use sincro::harness::gen::GenOptions;
use sincro::harness::{render, EngineKind, Expect, Scenario, Verdict};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// Sincro: deterministic simulation, fault injection and property checking for distributed
/// synchronization algorithms.
///
/// Exit codes: 0 pass, 1 property violated (fuzz: unexpected verdict), 2 bad input,
/// 3 the algorithm panicked, 4 a run limit was hit, 5 nondeterminism detected.
#[derive(Parser)]
#[command(name = "sincro", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum Engine {
    /// Sincro's discrete-event engine (fast).
    Native,
    /// Every node a turmoil host over simulated UDP.
    Turmoil,
}

impl From<Engine> for EngineKind {
    fn from(e: Engine) -> Self {
        match e {
            Engine::Native => EngineKind::Native,
            Engine::Turmoil => EngineKind::Turmoil,
        }
    }
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum Render {
    /// Text timeline, one line per event.
    Text,
    /// Only the verdict.
    None,
}

#[derive(Subcommand)]
enum Command {
    /// List the algorithms, their variants, properties and fault models.
    List,
    /// Run a scenario file and print its verdict.
    Run(RunArgs),
    /// Replay a scenario file (e.g. a fuzz failure) and print its trace as a timeline.
    Replay(RunArgs),
    /// Fuzz: generate scenarios from seeds, run them, write every failure as a replayable file.
    Fuzz(FuzzArgs),
    /// Measure engine speed: token ring and all-to-all broadcast on the native engine, on
    /// turmoil, and on a bare BinaryHeap loop (the reference limit).
    Bench(sincro::bench::BenchArgs),
    /// Measured comparison tables (e.g. `mutex`: Table 6.1, messages and delay per entry).
    Table(sincro::table::TableArgs),
    /// Render a scenario's run or a recorded trace: text timeline, Mermaid, or HTML diagram.
    Show(sincro::show::ShowArgs),
    /// Judge a trace recorded elsewhere (JSON Lines) against properties.
    Check(sincro::show::CheckArgs),
    /// Compare two traces of the same scenario: the first diverging event and its context.
    Diff(sincro::show::DiffArgs),
}

#[derive(clap::Args)]
struct RunArgs {
    /// The scenario JSON file.
    scenario: PathBuf,
    /// Also write the trace as JSON Lines to this file.
    #[arg(long)]
    trace: Option<PathBuf>,
    /// How to print the trace (`replay` defaults to text, `run` to none).
    #[arg(long, value_enum)]
    render: Option<Render>,
    /// Run on this engine instead of the one the scenario names.
    #[arg(long, value_enum)]
    engine: Option<Engine>,
}

#[derive(clap::Args)]
struct FuzzArgs {
    /// Algorithm to fuzz, or `all`.
    #[arg(long, short, default_value = "all")]
    algorithm: String,
    /// Variant to fuzz, or `all` (buggy variants are expected to fail).
    #[arg(long, default_value = "all")]
    variant: String,
    /// Seeds per (algorithm, variant).
    #[arg(long, default_value_t = 1000)]
    seeds: u64,
    /// First seed.
    #[arg(long, default_value_t = 0)]
    seed_start: u64,
    /// Engine for the generated scenarios.
    #[arg(long, value_enum, default_value = "native")]
    engine: Engine,
    /// Worker threads (each run stays single-threaded and deterministic).
    #[arg(long, short, default_value_t = 1)]
    jobs: usize,
    /// Count every failure instead of stopping a target at its first one.
    #[arg(long)]
    keep_going: bool,
    /// Also draw faults outside each algorithm's declared fault model (exploration).
    #[arg(long)]
    beyond_model: bool,
    /// Run every seed twice and compare the traces byte for byte.
    #[arg(long)]
    check_determinism: bool,
    /// Length of the faulty phase of each scenario, ms (then everything heals).
    #[arg(long, default_value_t = 1000)]
    active_ms: u64,
    /// Smallest node count.
    #[arg(long, default_value_t = 3)]
    nodes_min: usize,
    /// Largest node count.
    #[arg(long, default_value_t = 6)]
    nodes_max: usize,
    /// Directory for failing scenarios.
    #[arg(long, default_value = "failures")]
    out: PathBuf,
    /// With --keep-going, write at most this many failure files per target.
    #[arg(long, default_value_t = 20)]
    max_files: usize,
}

fn main() -> ExitCode {
    // Like other command-line tools, end quietly when the reader of stdout goes away
    // (`sincro replay s.json | head`) instead of panicking on the broken pipe.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE at start-up, before any thread
    // exists, is what a C program starts with; no Rust invariant depends on it.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    install_panic_hook();
    let cli = Cli::parse();
    let code = match cli.command {
        Command::List => list(),
        Command::Run(a) => run(a, Render::None),
        Command::Replay(a) => run(a, Render::Text),
        Command::Fuzz(a) => fuzz(a),
        Command::Bench(a) => sincro::bench::main(&a),
        Command::Table(a) => sincro::table::main(&a),
        Command::Show(a) => sincro::show::show(&a),
        Command::Check(a) => sincro::show::check(&a),
        Command::Diff(a) => sincro::show::diff(&a),
    };
    ExitCode::from(code as u8)
}

fn bad_input(msg: impl std::fmt::Display) -> i32 {
    eprintln!("error: {msg}");
    exit::BAD_INPUT
}

fn list() -> i32 {
    for alg in algorithms::registry() {
        let i = alg.info();
        println!("{}  -  {}", i.name, i.summary);
        println!("    source:      {}", i.source);
        println!("    properties:  {}", i.properties.join(", "));
        println!("    fault model: {}", i.fault_model.summary);
        let tol: Vec<_> = i.fault_model.tolerates.iter().map(|c| c.name()).collect();
        println!(
            "    tolerates:   delays{}{}",
            if tol.is_empty() { "" } else { ", " },
            tol.join(", ")
        );
        for v in &i.variants {
            println!(
                "    variant {:<16}{}{}",
                v.name,
                if v.buggy { "[buggy] " } else { "" },
                v.summary
            );
        }
        println!();
    }
    exit::PASS
}

fn run(a: RunArgs, default_render: Render) -> i32 {
    let mut sc = match Scenario::load(&a.scenario) {
        Ok(sc) => sc,
        Err(e) => return bad_input(e),
    };
    if let Some(e) = a.engine {
        sc.engine = e.into();
    }
    let render = a.render.unwrap_or(default_render);
    let record = render != Render::None || a.trace.is_some();
    let out = match algorithms::run_scenario(
        &sc,
        RunOptions {
            record_trace: record,
        },
    ) {
        Ok(o) => o,
        Err(e) => return bad_input(format!("{}: {e}", a.scenario.display())),
    };
    if let (Some(path), Some(trace)) = (&a.trace, &out.trace) {
        let written =
            std::fs::File::create(path).and_then(|f| trace.write_jsonl(std::io::BufWriter::new(f)));
        if let Err(e) = written {
            return bad_input(format!("cannot write trace {}: {e}", path.display()));
        }
    }
    if render == Render::Text {
        if let Some(trace) = &out.trace {
            use std::io::Write;
            // A closed pipe (`| head`) is not an error worth a panic.
            let written = std::io::stdout()
                .lock()
                .write_all(render::text(trace, Some(&out.verdict)).as_bytes());
            if written.is_err() {
                return sincro::exit_code(&out.verdict);
            }
        }
    }
    println!(
        "{} / {} ({} engine, seed {}): {}",
        sc.algorithm,
        sc.variant,
        sc.engine.name(),
        sc.seed,
        out.verdict
    );
    println!(
        "  {} events, {} sent, {} delivered, {} dropped, {:.3} ms simulated",
        out.stats.events,
        out.stats.sent,
        out.stats.delivered,
        out.stats.dropped,
        out.stats.end_t_ns as f64 / 1e6
    );
    if let Some(expect) = &sc.expect {
        let matched = match (expect, &out.verdict) {
            (Expect::Pass, Verdict::Pass) => true,
            (Expect::Violation(p), Verdict::Violation(v)) => *p == v.property,
            (Expect::Panic, Verdict::Panic { .. }) => true,
            _ => false,
        };
        println!(
            "  expected {expect:?}: {}",
            if matched {
                "as expected"
            } else {
                "NOT as expected"
            }
        );
    }
    if !out.verdict.is_pass() {
        println!("  replay: sincro replay {}", a.scenario.display());
    }
    sincro::exit_code(&out.verdict)
}

fn targets(algorithm: &str, variant: &str) -> Result<Vec<Target>, String> {
    let algs: Vec<&'static dyn Algorithm> = if algorithm == "all" {
        algorithms::registry()
    } else {
        vec![algorithms::find(algorithm).map_err(|e| e.0)?]
    };
    let mut out = Vec::new();
    for alg in algs {
        let info = alg.info();
        let vs: Vec<_> = info
            .variants
            .iter()
            .filter(|v| variant == "all" || v.name == variant)
            .cloned()
            .collect();
        if vs.is_empty() && algorithm != "all" {
            let known: Vec<_> = info.variants.iter().map(|v| v.name).collect();
            return Err(format!(
                "unknown variant `{variant}` of {}; known variants: {}",
                info.name,
                known.join(", ")
            ));
        }
        out.extend(vs.into_iter().map(|v| Target {
            algorithm: alg,
            variant: v,
        }));
    }
    if out.is_empty() {
        return Err(format!("no algorithm has a variant `{variant}`"));
    }
    Ok(out)
}

fn fuzz(a: FuzzArgs) -> i32 {
    if a.seeds == 0 {
        return bad_input("--seeds must be at least 1");
    }
    if a.nodes_min == 0 || a.nodes_min > a.nodes_max {
        return bad_input(format!(
            "need 1 <= --nodes-min <= --nodes-max, got {} and {}",
            a.nodes_min, a.nodes_max
        ));
    }
    if a.active_ms < 10 {
        return bad_input("--active-ms must be at least 10");
    }
    let targets = match targets(&a.algorithm, &a.variant) {
        Ok(t) => t,
        Err(e) => return bad_input(e),
    };
    let cfg = FuzzConfig {
        seed_start: a.seed_start,
        seeds: a.seeds,
        jobs: a.jobs.max(1),
        keep_going: a.keep_going,
        check_determinism: a.check_determinism,
        gen: GenOptions {
            nodes_min: a.nodes_min,
            nodes_max: a.nodes_max,
            active_ms: a.active_ms,
            beyond_model: a.beyond_model,
            engine: a.engine.into(),
        },
        out_dir: a.out.clone(),
        max_files: a.max_files,
    };
    let stop = AtomicBool::new(false);
    let mut reports: Vec<(TargetReport, f64)> = Vec::new();
    for t in &targets {
        let bar = ProgressBar::new(cfg.seeds);
        bar.set_style(
            ProgressStyle::with_template(
                "{prefix:32} [{bar:30}] {pos}/{len} seeds  {per_sec}  {msg}",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        bar.set_prefix(format!("{} / {}", t.algorithm.info().name, t.variant.name));
        let started = Instant::now();
        let report = fuzz_target(t, &cfg, &stop, &|failures| {
            bar.inc(1);
            if failures > 0 {
                bar.set_message(format!("{failures} failing"));
            }
        });
        bar.finish_and_clear();
        reports.push((report, started.elapsed().as_secs_f64()));
    }
    println!(
        "{:<22} {:<16} {:>5} {:>8} {:>8} {:>10} {:>9}  {:<28} outcome",
        "algorithm", "variant", "buggy", "seeds", "failing", "first", "runs/s", "verdict"
    );
    let mut code = exit::PASS;
    for (r, secs) in &reports {
        let outcome = match (r.buggy, r.first.is_some()) {
            (_, true) if a.beyond_model => format!(
                "explored: breaks outside its fault model after {} seeds",
                r.runs
            ),
            (_, false) if a.beyond_model => {
                "explored: held even outside its fault model".to_string()
            }
            (false, false) => "ok: no violation".to_string(),
            (true, true) => format!(
                "ok: caught after {} seeds",
                r.first.as_ref().map_or(0, |f| f.seed - a.seed_start + 1)
            ),
            (false, true) => {
                "UNEXPECTED: a correct variant failed inside its fault model".to_string()
            }
            (true, false) => "UNEXPECTED: the bug was not caught".to_string(),
        };
        // Outside the fault model, failures are findings, not regressions.
        if !r.as_expected && !a.beyond_model {
            code = exit::VIOLATION;
        }
        if r.first
            .as_ref()
            .is_some_and(|f| f.label == "nondeterministic")
        {
            code = exit::NONDETERMINISM;
        }
        println!(
            "{:<22} {:<16} {:>5} {:>8} {:>8} {:>10} {:>9.0}  {:<28} {}",
            r.algorithm,
            r.variant,
            if r.buggy { "yes" } else { "no" },
            r.runs,
            r.failures,
            r.first
                .as_ref()
                .map_or("-".to_string(), |f| f.seed.to_string()),
            r.runs as f64 / secs.max(1e-9),
            r.first
                .as_ref()
                .map_or("pass".to_string(), |f| f.label.clone()),
            outcome
        );
    }
    for (r, _) in &reports {
        if let Some(f) = &r.first {
            println!(
                "\n{} / {} seed {}: {}",
                r.algorithm, r.variant, f.seed, f.detail
            );
            match &f.path {
                Some(p) => println!(
                    "  written to {}\n  replay: sincro replay {}",
                    p.display(),
                    p.display()
                ),
                None => println!("  (could not write the scenario file)"),
            }
        }
    }
    code
}
