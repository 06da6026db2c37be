//! The `sincro` command line as a library: [`main_with`] runs every command (`list`, `run`,
//! `replay`, `fuzz`, `explore`, `matrix`, `show`, `check`, `diff`, `bench`, `table`,
//! `merge-reports`) over a
//! [`Registry`], so a user's own binary has every command for their algorithms too:
//!
//! ```no_run
//! use sincro::algorithms::Registry;
//! # #[derive(Clone)] struct MyAlgorithm;
//! # impl sincro::algorithms::Algorithm for MyAlgorithm {
//! #     fn info(&self) -> sincro::algorithms::AlgorithmInfo { unimplemented!() }
//! #     fn run(&self, _: &sincro::harness::Scenario, _: sincro::harness::RunOptions)
//! #         -> Result<sincro::harness::Outcome, sincro::harness::ScenarioError> { unimplemented!() }
//! #     fn workload(&self, _: &mut sincro::harness::SimRng, _: usize, _: u64)
//! #         -> Vec<sincro::harness::WorkloadItem> { vec![] }
//! #     fn liveness_bound_ms(&self, _: &sincro::harness::Scenario) -> u64 { 0 }
//! # }
//! fn main() -> std::process::ExitCode {
//!     sincro::cli::main_with(Registry::builtin().with(MyAlgorithm))
//! }
//! ```

use crate::algorithms::{self, Registry};
use crate::exit;
use crate::fuzz::{self, CampaignOptions, FuzzConfig, Live, Rss, Shard, Target};
use crate::harness::engine::{install_panic_hook, RunOptions};
use crate::harness::gen::{GenOptions, Strategy};
use crate::harness::scenario::MAX_NODES;
use crate::harness::shrink::ShrinkOptions;
use crate::harness::{render, EngineKind, Scenario, MAX_TIME_MS};
use clap::{Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

mod calibrate;
pub(crate) use calibrate::same_search_note;
pub(crate) mod grid;
mod matrix;
mod shrink;

/// Sincro: deterministic simulation, fault injection and property checking for distributed
/// synchronization algorithms.
///
/// Exit codes: 0 pass (run: the scenario's `expect` met), 1 property violated (fuzz:
/// unexpected verdict), 2 bad input (a value out of range, an output that cannot be written,
/// a generated scenario the engine refuses), 3 the algorithm panicked, 4 a run limit was hit,
/// 5 nondeterminism detected, 6 a checker could not judge, 130 interrupted by Ctrl-C, SIGTERM
/// or SIGHUP (fuzz, matrix, shrink, calibrate, explore: what was found is written; table: the
/// rows measured are printed; the other commands end at the signal, as any program does: 130,
/// 143 or 129 from the shell).
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
    /// Every node a madsim node over madsim's network (builds with RUSTFLAGS=\"--cfg madsim\").
    Madsim,
}

impl Engine {
    /// The name `--engine` takes.
    fn name(self) -> &'static str {
        match self {
            Engine::Native => "native",
            Engine::Turmoil => "turmoil",
            Engine::Madsim => "madsim",
        }
    }
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

/// Prints `out`'s trace as a text timeline on stdout (a long failing trace as the causal
/// past of its violation); the write's error when stdout cannot take it (a broken pipe never
/// returns: SIGPIPE ends the program quietly first).
pub(crate) fn print_timeline(out: &crate::harness::Outcome) -> std::io::Result<()> {
    print_view(out, &crate::harness::view::Filter::default())
}

/// [`print_timeline`] with the events `filter` selects (already checked against the trace).
fn print_view(
    out: &crate::harness::Outcome,
    filter: &crate::harness::view::Filter,
) -> std::io::Result<()> {
    use std::io::Write;
    let Some(trace) = &out.trace else {
        return Ok(());
    };
    let sel = crate::harness::view::select(trace, Some(&out.verdict), filter)
        .unwrap_or_else(|_| crate::harness::view::Selection::all(trace));
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(render::text_view(trace, &sel, Some(&out.verdict)).as_bytes())?;
    stdout.flush()
}

/// `--strategy`: how each seed's scenario is shaped beyond the swarm of fault classes.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum StrategyArg {
    /// Each seed draws one of the others (random 1/15, pct 1/15, pos 1/15, moments 10/15, pct
    /// with moments 2/15).
    Mix,
    /// Every delay drawn from its link's latency law; faults at drawn times only.
    Random,
    /// PCT: node priorities with 0 to 2 change points; a message takes its link's minimum
    /// delay for the top node, its maximum for the bottom one, in between for the others.
    Pct,
    /// Partial-order sampling: every delay uniform over its link's bounds.
    Pos,
    /// Random delays plus faults right after protocol moments a pilot run shows (a node
    /// enters the critical section, becomes leader, restarts and sends…): 1 to 80 rounds,
    /// uniform, each round one fault and every second round a pilot run; the rounds stop at the first pilot that
    /// breaks a property (a pilot runs a phase past the active one).
    Moments,
}

impl From<StrategyArg> for Strategy {
    fn from(s: StrategyArg) -> Self {
        match s {
            StrategyArg::Mix => Strategy::Mix,
            StrategyArg::Random => Strategy::Random,
            StrategyArg::Pct => Strategy::Pct,
            StrategyArg::Pos => Strategy::Pos,
            StrategyArg::Moments => Strategy::Moments,
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
    /// Run a scenario file and print its verdict. A scenario with `expect` is judged against
    /// it: exit 0 when the verdict meets it; else the verdict's code (1 for an unexpected pass).
    Run(RunArgs),
    /// Replay a scenario file (e.g. a fuzz failure) and print its trace as a timeline. Exit:
    /// the verdict's own code (1 for a violation) whatever the file's `expect` says, so a
    /// failure file that reproduces exits 1; `run` judges against `expect` (0 when met).
    Replay(RunArgs),
    /// Shrink a failing scenario file (a failure written with `fuzz --no-shrink`, one from
    /// another engine, one of your own) to a smaller one that fails the same way, as `fuzz`
    /// shrinks what it finds; written next to it as `<name>.shrunk.json`. Exit 0 when written,
    /// 1 when the scenario does not fail (nothing to shrink), 6 when its run could not be
    /// judged (a shorter run would only judge less: nothing is written), 2 on bad input.
    Shrink(shrink::ShrinkArgs),
    /// Fuzz: generate scenarios from seeds, run them, write every failure as a replayable file.
    Fuzz(FuzzArgs),
    /// Calibrate the search on a buggy variant (one of yours too): several campaigns at
    /// distant seed offsets per strategy; the failing-seed rate, the seeds each campaign
    /// needed to its first failure and their median. Tells "correct" from "the search never
    /// got there" for bugs like yours.
    Calibrate(calibrate::CalibrateArgs),
    /// Bounded exhaustive exploration of a small scenario: every order of its events (and
    /// bounded loss, duplication, crashes) up to a depth; a shortest counterexample or "no
    /// violation within the bound".
    Explore(crate::explore::ExploreArgs),
    /// Fault-tolerance matrix: for each algorithm and fault class, which declared properties
    /// hold, and a shrunk counterexample for each that breaks.
    Matrix(matrix::MatrixArgs),
    /// Measure engine speed: token ring and all-to-all broadcast on the native engine, on
    /// turmoil, and on two reference loops: the `bare loop` (the same node code through `Ctx`
    /// over a BinaryHeap, no network model: the native engine's target) and the
    /// `hand-inlined loop` (the workload written against a BinaryHeap, no node code).
    Bench(crate::bench::BenchArgs),
    /// Measured comparison tables (e.g. `mutex`: Table 6.1, messages and delay per entry).
    Table(crate::table::TableArgs),
    /// Render a scenario's run or a recorded trace: text timeline, Mermaid, or HTML diagram.
    Show(crate::show::ShowArgs),
    /// Merge the JUnit reports of several `fuzz --junit` runs (the shards of a CI matrix) into
    /// one: per target the seeds and runs are added up and the outcome is as expected only
    /// when it was in every report. Prints the merged table and one closing line; exit 0 when
    /// every target is as expected, 1 when one is not, 2 when a file cannot be read or is not
    /// such a report, a shard is given twice, or a shard of the matrix is missing (unless
    /// `--partial`).
    MergeReports(MergeArgs),
    /// Judge a trace recorded elsewhere (JSON Lines) against properties.
    Check(crate::show::CheckArgs),
    /// Compare two traces of the same scenario: the first diverging event and its context.
    /// Exit 0 when they are identical, 1 when they differ, 2 on bad input.
    Diff(crate::show::DiffArgs),
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
    /// Which events the text timeline shows.
    #[command(flatten)]
    view: crate::show::ViewArgs,
}

#[derive(clap::Args)]
struct MergeArgs {
    /// The JUnit files written by `sincro fuzz --junit` (one per shard).
    #[arg(required = true, value_name = "REPORT.xml")]
    reports: Vec<PathBuf>,
    /// Write the merged JUnit report to this file.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Merge even when some shards of the `--shard K/N` matrix are missing (by default that
    /// is an error, exit 2): the summary then says which, and so does the merged report's
    /// `missing-shards` property.
    #[arg(long)]
    partial: bool,
}

/// Campaign budget, shared by the targets.
const TIME_HELP: &str = "Wall-clock budget for the whole campaign, e.g. 60s, 5m, 1h30m. \
Without --seeds the seeds are unbounded until the budget ends; with --seeds, whichever ends \
first. The budget is shared by the targets: the time left is split evenly among the targets \
still running, in rounds, and a target that ends early (seeds exhausted, or a buggy variant \
caught) hands its leftover on to the others.";

/// The longest `--active-ms`: a seed's faulty phase is up to 4 times it, and the generated
/// scenario goes on after it (liveness bounds, clock convergence), all within
/// [`MAX_TIME_MS`] (stop 69's probe: 1e9 was accepted, and every seed was refused as lasting
/// past the limit).
const ACTIVE_MS_MAX: u64 = MAX_TIME_MS / 10;

/// How generated scenarios are shaped: `fuzz` and `calibrate` take the same options.
#[derive(clap::Args)]
pub(crate) struct ScenarioArgs {
    /// Length of the faulty phase of each scenario, ms (then everything heals). Each seed's
    /// phase is ¼, ½, 1, 2 or 4 times it, drawn from the seed (swarm testing: a short phase packs
    /// faults and workload together, a long one leaves room for more protocol rounds), unless
    /// --fixed-phase. At least 10 ms, at most 100,000,000.
    #[arg(long, default_value_t = 1000)]
    active_ms: u64,
    /// Every seed's faulty phase exactly --active-ms (no swarm over its length).
    #[arg(long)]
    fixed_phase: bool,
    /// Smallest node count.
    #[arg(long, default_value_t = 3)]
    nodes_min: usize,
    /// Largest node count.
    #[arg(long, default_value_t = 6)]
    nodes_max: usize,
}

impl ScenarioArgs {
    /// The options out of range, named.
    fn check(&self) -> Result<(), String> {
        if self.nodes_min == 0 || self.nodes_min > self.nodes_max {
            return Err(format!(
                "need 1 <= --nodes-min <= --nodes-max, got {} and {}",
                self.nodes_min, self.nodes_max
            ));
        }
        if self.nodes_max > MAX_NODES {
            return Err(format!(
                "--nodes-max = {} is above the limit of {MAX_NODES}",
                self.nodes_max
            ));
        }
        if !(10..=ACTIVE_MS_MAX).contains(&self.active_ms) {
            return Err(format!(
                "--active-ms = {} is outside 10 ..= {ACTIVE_MS_MAX} ms (a seed's faulty phase is \
                 up to 4 times it, and the generated run goes on after it, within the \
                 {MAX_TIME_MS} ms a scenario may last)",
                self.active_ms
            ));
        }
        Ok(())
    }

    /// The generator's options with these (the rest as `base` has them).
    fn gen(&self, base: GenOptions) -> GenOptions {
        GenOptions {
            nodes_min: self.nodes_min,
            nodes_max: self.nodes_max,
            active_ms: self.active_ms,
            phase_swarm: !self.fixed_phase,
            ..base
        }
    }
}

#[derive(clap::Args)]
struct FuzzArgs {
    /// Algorithms to fuzz: `all`, a name, a family glob (`clock.*`), or a comma list of these;
    /// `!` excludes (`all,!clock.*`).
    #[arg(long, short, default_value = "all")]
    algorithm: String,
    /// Variant to fuzz, or `all` (buggy variants are expected to fail).
    #[arg(long, default_value = "all")]
    variant: String,
    /// Seeds per (algorithm, variant) [default: 1000, or unbounded with --time].
    #[arg(long)]
    seeds: Option<u64>,
    #[arg(long, value_name = "DURATION", value_parser = fuzz::parse_duration, help = TIME_HELP)]
    time: Option<Duration>,
    /// Run only shard K of N (1-based): the seeds s with (s - seed-start) % N == K-1, so N CI
    /// jobs with --shard 1/N .. N/N cover the range exactly once. A buggy variant must be
    /// caught within each shard. With coverage guidance (the default) each shard keeps its own
    /// corpus, and a seed may run a scenario mutated from another of the shard's: the shards
    /// run the same seeds as one campaign, not always the same scenarios (every failure file
    /// holds its scenario, and replays alone). With --no-coverage each seed's scenario is its
    /// own, whatever the shard.
    #[arg(long, value_name = "K/N", default_value = "1/1")]
    shard: Shard,
    /// First seed.
    #[arg(long, default_value_t = 0)]
    seed_start: u64,
    /// Engine for the generated scenarios.
    #[arg(long, value_enum, default_value = "native")]
    engine: Engine,
    /// Search strategy: how each seed orders racing messages (the schedule, recorded in the
    /// scenario) and whether faults are injected at protocol moments. Turmoil draws its own
    /// latencies, so there every schedule is random.
    #[arg(long, value_enum, default_value = "mix")]
    strategy: StrategyArg,
    /// No coverage guidance: every seed's scenario is generated fresh. By default runs are
    /// traced, the scenarios that reach something new (a new pair of events at a node, a
    /// fault in a new state, one of the algorithm's goals) are kept, and a quarter of the
    /// later seeds mutate one of them; the summary lists the goals never reached. `--strategy
    /// random` implies it.
    #[arg(long)]
    no_coverage: bool,
    /// Worker threads, 1 to 256 (0 is taken as 1): one run per thread, each run
    /// single-threaded and deterministic.
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
    #[command(flatten)]
    scenarios: ScenarioArgs,
    /// Directory for failing scenarios (`<alg>.<variant>.seed<N>.json` and `.shrunk.json`);
    /// created and probed for writing before the campaign starts.
    #[arg(long, default_value = "failures")]
    out: PathBuf,
    /// With --keep-going, write (and shrink) at most this many failures per target (at least
    /// 1); the smallest failing seed, the one the summary reports, is always written.
    #[arg(long, default_value_t = 20, requires = "keep_going")]
    max_files: usize,
    /// Do not shrink failures (only the generated scenario is written).
    #[arg(long, conflicts_with_all = ["shrink_runs", "shrink_time"])]
    no_shrink: bool,
    /// At most this many candidate runs when shrinking one failure [default: the shrinker's].
    #[arg(long, value_name = "N")]
    shrink_runs: Option<usize>,
    /// At most this long shrinking one failure (e.g. `30s`, `2m`); the smallest scenario
    /// verified by then is written.
    #[arg(long, value_name = "DURATION", value_parser = fuzz::parse_duration, default_value = "60s")]
    shrink_time: Duration,
    /// Also write a JUnit XML report to this file.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// No progress display on stderr.
    #[arg(long, short)]
    quiet: bool,
}

/// The `sincro` command over the built-in algorithms.
pub fn main() -> ExitCode {
    main_with(Registry::builtin())
}

/// Makes a failed write to standard output or standard error (`println!` panics on one: a
/// full disk, `> /dev/full`) end the program with exit 2 and one line naming it, as any other
/// output that cannot be written does, instead of a panic's exit 101 and backtrace. A broken
/// pipe never gets here: SIGPIPE ends the program first, quietly. Every other panic goes to the
/// hook installed before.
fn exit_on_output_errors() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let text = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if let Some(rest) = text.strip_prefix("failed printing to std") {
            let (stream, why) = rest.split_once(": ").unwrap_or((rest, ""));
            let stream = if stream.starts_with("err") {
                "error"
            } else {
                "output"
            };
            // Standard error may be the stream that failed: the line is best effort.
            use std::io::Write as _;
            let _ = writeln!(
                std::io::stderr(),
                "error: cannot write to standard {stream}: {why}"
            );
            std::process::exit(exit::BAD_INPUT);
        }
        previous(info);
    }));
}

/// The `sincro` command over `registry`: parses the process arguments, runs the command and
/// returns its exit code (see `sincro --help`). Call it once, from `main`: it installs
/// `registry` as the one every command reads.
pub fn main_with(registry: Registry) -> ExitCode {
    main_from(registry, std::env::args_os())
}

/// `text` with each command line of `sincro` (the word `sincro` followed by a space, at the
/// start, after a space, a backtick or a parenthesis) naming `program` instead.
pub(crate) fn program_in_text(text: &str, program: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("sincro ") {
        let before = rest[..i].chars().next_back();
        out.push_str(&rest[..i]);
        if before.is_none_or(|c| matches!(c, ' ' | '`' | '(' | '\n')) {
            out.push_str(program);
        } else {
            out.push_str("sincro");
        }
        out.push(' ');
        rest = &rest[i + "sincro ".len()..];
    }
    out.push_str(rest);
    // The example crate's binary, where a message shows how to build one (the madsim engine's
    // absence): a user's program names its own binary (stop 65's probe), by its file name
    // (`program` may be the path it was run by, quoted); Sincro's own keeps the example.
    let bin = program
        .trim_matches('\'')
        .rsplit('/')
        .next()
        .unwrap_or(program);
    if bin == "sincro" || bin.is_empty() {
        return out;
    }
    out.replace("--bin lease-sincro", &format!("--bin {bin}"))
}

/// `command`'s help (its texts, its arguments', its subcommands') with `sincro …` command
/// lines naming `program`.
fn named_in_help(command: clap::Command, program: &str) -> clap::Command {
    let fix = |s: &clap::builder::StyledStr| program_in_text(&s.to_string(), program);
    let mut c = command;
    if let Some(t) = c.get_about().map(fix) {
        c = c.about(t);
    }
    if let Some(t) = c.get_long_about().map(fix) {
        c = c.long_about(t);
    }
    if let Some(t) = c.get_after_help().map(fix) {
        c = c.after_help(t);
    }
    if let Some(t) = c.get_after_long_help().map(fix) {
        c = c.after_long_help(t);
    }
    let args: Vec<String> = c.get_arguments().map(|a| a.get_id().to_string()).collect();
    for id in args {
        c = c.mut_arg(id, |mut a| {
            if let Some(t) = a.get_help().map(fix) {
                a = a.help(t);
            }
            if let Some(t) = a.get_long_help().map(fix) {
                a = a.long_help(t);
            }
            a
        });
    }
    let subcommands: Vec<String> = c
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    for name in subcommands {
        c = c.mut_subcommand(name, |s| named_in_help(s, program));
    }
    c
}

/// As [`main_with`], with explicit arguments (the first is the program name).
pub fn main_from<I, T>(registry: Registry, args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    if let Err(r) = registry.install() {
        let names =
            |r: &Registry| -> Vec<&str> { r.algorithms().iter().map(|a| a.info().name).collect() };
        if names(Registry::current()) != names(&r) {
            eprintln!(
                "error: a different registry was installed before this one; \
                 call sincro::cli::main_with once, before anything reads the registry"
            );
            return ExitCode::from(exit::BAD_INPUT as u8);
        }
    }
    // Like other command-line tools, end quietly when the reader of stdout goes away
    // (`sincro replay s.json | head`) instead of panicking on the broken pipe.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE at start-up, before any thread
    // exists, is what a C program starts with; no Rust invariant depends on it.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    install_panic_hook();
    exit_on_output_errors();
    let args: Vec<std::ffi::OsString> = args.into_iter().map(Into::into).collect();
    if let Some(name) = args
        .first()
        .and_then(|a| crate::program_name_from(std::path::Path::new(a)))
    {
        crate::set_program_name(name);
    }
    // A negative number is read as a value, so that `--seeds -5` is told the value is
    // invalid for `--seeds`, not that `-5` is an unknown argument.
    let mut command = <Cli as clap::CommandFactory>::command()
        .allow_negative_numbers(true)
        .mut_subcommands(|s| s.allow_negative_numbers(true));
    if crate::program_name() != "sincro" {
        // A user's program (`lease-sincro`) shows its own name in the help's examples, and in
        // `--version`, with the sincro it is built on (it said `sincro 0.1.0`).
        command = named_in_help(command, crate::program_name());
        let file = std::path::Path::new(crate::program_name().trim_matches('\''))
            .file_name()
            .and_then(|f| f.to_str())
            .unwrap_or("sincro");
        if file != "sincro" {
            let name: &'static str = Box::leak(file.to_string().into_boxed_str());
            let version: &'static str =
                Box::leak(format!("(sincro {})", env!("CARGO_PKG_VERSION")).into_boxed_str());
            command = command.name(name).version(version);
        }
    }
    let parsed = command
        .try_get_matches_from(args)
        .and_then(|m| <Cli as clap::FromArgMatches>::from_arg_matches(&m));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            // `--help` and `--version` exit 0 only once their text is written (to a full
            // disk it is lost: exit 2, as any other output that cannot be written).
            if let (Err(w), 0) = (e.print(), e.exit_code()) {
                eprintln!("error: cannot write to standard output: {w}");
                return ExitCode::from(exit::BAD_INPUT as u8);
            }
            return ExitCode::from(e.exit_code() as u8);
        }
    };
    let code = match cli.command {
        Command::List => list(),
        Command::Run(a) => run(a, Render::None),
        Command::Replay(a) => run(a, Render::Text),
        Command::Shrink(a) => shrink::main(&a),
        Command::Fuzz(a) => fuzz(a),
        Command::Calibrate(a) => calibrate::main(&a),
        Command::Explore(a) => crate::explore::main(&a),
        Command::Matrix(a) => matrix::main(&a),
        Command::Bench(a) => crate::bench::main(&a),
        Command::Table(a) => crate::table::main(&a),
        Command::Show(a) => crate::show::show(&a),
        Command::MergeReports(a) => merge_reports(&a),
        Command::Check(a) => crate::show::check(&a),
        Command::Diff(a) => crate::show::diff(&a),
    };
    ExitCode::from(code as u8)
}

fn bad_input(msg: impl std::fmt::Display) -> i32 {
    eprintln!("error: {}", for_program(&msg.to_string()));
    exit::BAD_INPUT
}

/// `msg` with its `sincro …` command lines naming the program that runs (a user's binary over
/// [`main_with`]): the messages of the library's layers say `sincro`, and a user's binary told
/// its user to run `sincro explore --replay FILE`, which does not know their algorithm.
///
/// Control and bidirectional characters are escaped (`\u{1b}`), line breaks and tabs kept:
/// an error quotes file names, keys and values from its input, and a name holding an escape
/// sequence moved the terminal's cursor or cleared the screen.
pub(crate) fn for_program(msg: &str) -> String {
    let msg = terminal_safe(msg);
    match crate::program_name() {
        "sincro" => msg,
        program => program_in_text(&msg, program),
    }
}

/// `text` with every control character but line breaks and tabs, and every character that
/// reorders or breaks a line on a terminal (U+202E, U+2028…), escaped.
fn terminal_safe(text: &str) -> String {
    let unsafe_char = |c: char| c != '\n' && c != '\t' && render::unsafe_on_a_line(c);
    text.chars()
        .map(|c| {
            if unsafe_char(c) {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

fn list() -> i32 {
    for alg in algorithms::registry() {
        let i = alg.info();
        match i.summary {
            "" => println!("{}", i.name),
            summary => println!("{}  -  {summary}", i.name),
        }
        // a user's spec may name no source (`Spec::source` defaults to empty)
        if !i.source.is_empty() {
            println!("    source:      {}", i.source);
        }
        println!("    properties:  {}", i.properties.join(", "));
        println!("    fault model: {}", i.fault_model.summary);
        let tol: Vec<_> = i.fault_model.tolerates.iter().map(|c| c.name()).collect();
        println!(
            "    tolerates:   delays{}{}",
            if tol.is_empty() { "" } else { ", " },
            tol.join(", ")
        );
        let m = &i.fault_model;
        if m.drift_ppm_max.is_some() || m.clock_jump_ms_max.is_some() {
            // A class the model leaves out has no cap to speak of: "any" read as if a lease
            // tolerated any clock jump.
            let cap =
                |class: crate::harness::fault::FaultClass, c: Option<u32>, unit: &str| -> String {
                    match c {
                        _ if !m.tolerates.contains(&class) => "none (not in the model)".into(),
                        Some(c) => format!("up to {c} {unit}"),
                        None => "any".into(),
                    }
                };
            println!(
                "    clock caps:  drift {}, jumps {} (generated scenarios are scaled inside)",
                cap(
                    crate::harness::fault::FaultClass::ClockDrift,
                    m.drift_ppm_max,
                    "ppm"
                ),
                cap(
                    crate::harness::fault::FaultClass::ClockJumps,
                    m.clock_jump_ms_max,
                    "ms"
                )
            );
        }
        // names longer than the usual column widen it, so no name runs into its tags
        let width = i
            .variants
            .iter()
            .map(|v| v.name.len() + 1)
            .max()
            .unwrap_or(0)
            .max(16);
        for v in &i.variants {
            println!(
                "    variant {:<width$}{}{}",
                v.name,
                match (v.buggy, v.deep) {
                    (_, true) => "[buggy, deep] ",
                    (true, false) => "[buggy] ",
                    _ => "",
                },
                v.summary
            );
        }
        println!();
    }
    exit::PASS
}

/// Runs `f`, the run of the scenario file `path`, saying on stderr if it has not returned
/// after [`fuzz::LONG_RUN`] ([`fuzz::noticed`]).
pub(crate) fn noticed_run<T>(path: &std::path::Path, f: impl FnOnce() -> T) -> T {
    fuzz::noticed(
        fuzz::LONG_RUN,
        || {
            eprintln!(
                "{}: the run has gone on for {} without returning: a long run, or a callback \
                 that never returns (one looping without asking for a send, timer or \
                 observation cannot be stopped inside a run; Ctrl-C twice quits)",
                path.display(),
                humantime::format_duration(fuzz::LONG_RUN)
            )
        },
        f,
    )
}

fn run(a: RunArgs, default_render: Render) -> i32 {
    let mut sc = match Scenario::load(&a.scenario) {
        Ok(sc) => sc,
        Err(e) => return bad_input(e),
    };
    // The replay line names the engine only when `--engine` overrode the file's.
    let overrode = a.engine.filter(|&e| sc.engine != e.into());
    if let Some(e) = a.engine {
        sc.engine = e.into();
    }
    if let Some(Err(e)) = a.trace.as_ref().map(|t| {
        crate::refuse_overwrite(
            "--trace",
            t,
            &[&a.scenario],
            "the scenario itself",
            "the scenario",
        )
    }) {
        return bad_input(e);
    }
    let render = a.render.unwrap_or(default_render);
    if render == Render::None && a.view != crate::show::ViewArgs::default() {
        return bad_input(
            "--all, --node, --from-ms, --to-ms and --only choose what the timeline shows, and \
             --render none prints none: add --render text",
        );
    }
    let record =
        render != Render::None || a.trace.is_some() || a.view != crate::show::ViewArgs::default();
    let ran = noticed_run(&a.scenario, || {
        algorithms::run_scenario(&sc, RunOptions::new(record))
    });
    let mut out = match ran {
        Ok(o) => o,
        Err(e) => return bad_input(format!("{}: {e}", a.scenario.display())),
    };
    if let Err(e) = unless_nothing_judged(&sc, &mut out) {
        return bad_input(format!("{}: {e}", a.scenario.display()));
    }
    // Bad view options are bad input even when nothing is printed. With none given and
    // nothing printed there is nothing to check: the trace is only written, and a long one is
    // not unpacked for it.
    let viewed = render != Render::None || a.view != crate::show::ViewArgs::default();
    let filter = match out
        .trace
        .as_ref()
        .filter(|_| viewed)
        .map(|t| crate::show::selection(t, Some(&out.verdict), &a.view).and(a.view.filter()))
    {
        Some(Err(e)) => return bad_input(format!("{}: {e}", a.scenario.display())),
        Some(Ok(f)) => f,
        None => crate::harness::view::Filter::default(),
    };
    // The trace is written before the verdict is printed, which may end the command (a full
    // or closed standard output): neither is lost. An error writing the trace is reported
    // after the verdict, and makes the exit code 2.
    let written = match (&a.trace, &out.trace) {
        (Some(path), Some(trace)) => write_trace(path, trace)
            .map_err(|e| format!("cannot write trace {}: {e}", path.display())),
        _ => Ok(()),
    };
    let code = report_run(&a, overrode, &sc, &out, render, default_render, &filter);
    match written {
        Ok(()) => code,
        Err(e) => bad_input(e),
    }
}

/// A pass on nothing is none: when the run passed but its trace has no event a property's
/// checker reads (a mutual exclusion scenario with no request), the verdict is *could not
/// judge*, naming the kinds, as `check` and the testing API say. A run with no trace, or one
/// whose trace was cut (`limits.max_trace_bytes`), is run again untraced with its checkers
/// watching for their evidence ([`RunOptions::requiring_evidence`]: same seed, same run); an
/// algorithm that judges its own state (Ω) keeps its verdict.
pub(crate) fn unless_nothing_judged(
    sc: &Scenario,
    out: &mut crate::harness::Outcome,
) -> Result<(), crate::harness::ScenarioError> {
    if !out.verdict.is_pass() {
        return Ok(());
    }
    let alg = algorithms::find(&sc.algorithm)?;
    let Ok(checkers) = alg.checkers(sc) else {
        return Ok(()); // judged on its own state, not from a trace
    };
    match &out.trace {
        Some(trace)
            if !matches!(
                trace.last().map(|e| e.kind),
                Some(crate::harness::trace::EventKind::Cut { .. })
            ) =>
        {
            out.verdict = crate::show::unless_vacuous(trace, &checkers, out.verdict.clone(), "run");
        }
        // No trace, or one that stops early (what it lacks may be after the cut): the run
        // again, its checkers watching every event for their evidence.
        _ => {
            let watched =
                algorithms::run_scenario(sc, RunOptions::new(false).requiring_evidence())?;
            if matches!(watched.verdict, crate::harness::Verdict::Unjudged { .. }) {
                out.verdict = watched.verdict;
            }
        }
    }
    Ok(())
}

/// Prints a run's view (with `--render text`), verdict, counts and expectation; returns the
/// exit code.
fn report_run(
    a: &RunArgs,
    overrode: Option<Engine>,
    sc: &Scenario,
    out: &crate::harness::Outcome,
    render: Render,
    default_render: Render,
    filter: &crate::harness::view::Filter,
) -> i32 {
    if render == Render::Text {
        if let Err(e) = print_view(out, filter) {
            return bad_input(format!("cannot write to standard output: {e}"));
        }
    }
    println!("{}", scenario_line(sc, &out.verdict));
    println!("  {}", run_counts(out));
    let mut matched = None;
    if let Some(expect) = &sc.expect {
        let m = expect.matches(&out.verdict);
        matched = Some(m);
        println!(
            "  expected {expect}: {}",
            if m { "as expected" } else { "NOT as expected" }
        );
    }
    // Every failure says how to replay it: a verdict other than a pass, or a pass where the
    // scenario expected something else.
    if !out.verdict.is_pass() || matched == Some(false) {
        println!(
            "  replay: {}",
            crate::replay_command(&a.scenario, overrode.map(|e| e.name()))
        );
    }
    match (default_render, matched) {
        // `run` of a scenario with `expect` judges the expectation: 0 when met; when not, the
        // verdict's own code (1 for a pass where a violation or a panic was expected).
        (Render::None, Some(true)) => exit::PASS,
        (Render::None, Some(false)) if out.verdict.is_pass() => exit::VIOLATION,
        _ => crate::exit_code(&out.verdict),
    }
}

/// `alg / variant (engine engine, seed S): what`, the first line `run` and `shrink` print:
/// one line, its control, separator and bidirectional characters escaped, as the timeline's
/// verdict line (a verdict quotes the scenario's own texts: a message name with an escape
/// sequence and a line break printed raw, stop 72's probe).
fn scenario_line(sc: &Scenario, what: &dyn std::fmt::Display) -> String {
    sincro_harness::scenario::shown_text(&format!(
        "{} / {} ({} engine, seed {}): {what}",
        sc.algorithm,
        sc.variant,
        sc.engine.name(),
        sc.seed
    ))
}

/// The counts line of `run`. "Events" are what a trace holds and what every view and verdict
/// counts and numbers (starts, inputs, faults, timers, sends, deliveries, drops,
/// observations); the engine's own counter (`Stats::events`) counts only the steps it took
/// (starts, inputs, faults, timers, deliveries), so it is printed as "steps", and the events
/// are printed when the trace was recorded (`--trace`, `--render text`, `replay`).
fn run_counts(out: &crate::harness::Outcome) -> String {
    let events = out.trace.as_ref().map_or(String::new(), |t| {
        let cut = matches!(
            t.last().map(|e| e.kind),
            Some(sincro_harness::trace::EventKind::Cut {
                run_stopped: false,
                ..
            })
        );
        if cut {
            format!(
                "{} events recorded before the trace was cut (limits.max_trace_bytes), ",
                t.len()
            )
        } else {
            format!("{} events, ", t.len())
        }
    });
    format!(
        "{events}{} steps, {} sent, {} delivered, {} dropped, {:.3} ms simulated",
        out.stats.events,
        out.stats.sent,
        out.stats.delivered,
        out.stats.dropped,
        out.stats.end_t_ns as f64 / 1e6
    )
}

/// Writes `trace` as JSON Lines to `path` (its folder created), flushing and syncing: a full
/// disk or a trace past the size a reader takes is an error, never a silently truncated trace.
/// A regular file this call created or truncated and left part-written is removed; a file it
/// could not open is left alone.
fn write_trace(path: &std::path::Path, trace: &crate::harness::Trace) -> std::io::Result<()> {
    use std::io::Write;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        crate::fuzz::create_dir_all(dir)?;
    }
    // A FIFO no program reads is an error at once, not a wait with no end.
    let f = match sincro_harness::scenario::open_fifo_for_writing(path) {
        Some(f) => f?,
        None => std::fs::File::create(path)?,
    };
    let regular = f.metadata().is_ok_and(|m| m.is_file());
    let written = (|| {
        let mut w = std::io::BufWriter::new(f);
        trace.write_jsonl(&mut w)?;
        w.flush()?;
        let f = w.into_inner().map_err(|e| e.into_error())?;
        // A device (`/dev/stdout`) cannot be synced; a regular file must be.
        if regular {
            f.sync_all()?;
        }
        Ok(())
    })();
    if written.is_err() && regular {
        let _ = std::fs::remove_file(path);
    }
    written
}

fn targets(algorithm: &str, variant: &str) -> Result<Vec<Target>, String> {
    let algs = algorithms::select(algorithm).map_err(|e| e.0)?;
    // An algorithm named by itself (not through `all` or a glob) that lacks the variant is
    // refused: `-a 'mutex.centralized,mutex.quorum' --variant lease-timeout` dropped quorum
    // in silence and said "1/1 targets as expected" (stop 72's probe).
    let single = algs.len() == 1 && !algorithm.contains(['*', ',']) && algorithm != "all";
    let named = |name: &str| single || algorithm.split(',').map(str::trim).any(|p| p == name);
    let mut out = Vec::new();
    for alg in algs {
        let info = alg.info();
        let vs: Vec<_> = info
            .variants
            .iter()
            .filter(|v| variant == "all" || v.name == variant)
            .cloned()
            .collect();
        if vs.is_empty() && named(info.name) {
            let known: Vec<_> = info.variants.iter().map(|v| v.name).collect();
            return Err(crate::algorithms::unknown_variant(
                variant, info.name, &known,
            ));
        }
        out.extend(vs.into_iter().map(|v| Target {
            algorithm: alg,
            variant: v,
        }));
    }
    if out.is_empty() {
        let shown = crate::harness::scenario::shown_text(variant);
        // Said of the selection when it leaves out one that has it (`'mutex.*,!mutex.x'`).
        let elsewhere: Vec<_> = algorithms::select("all")
            .unwrap_or_default()
            .into_iter()
            .filter(|a| a.info().variants.iter().any(|v| v.name == variant))
            .map(|a| a.info().name)
            .collect();
        return Err(if elsewhere.is_empty() {
            format!("no algorithm has a variant `{shown}`")
        } else {
            format!(
                "no selected algorithm has a variant `{shown}` (`{}` leaves out {}, which has \
                 it)",
                crate::harness::scenario::shown_text(algorithm),
                elsewhere.join(", ")
            )
        });
    }
    Ok(out)
}

/// Why `engine` cannot run the campaign at all (missing from this build, or scenarios of up
/// to `nodes_max` nodes are above its limit), checked before any seed runs: otherwise the
/// first refused seed would stop the campaign part-way.
fn engine_takes(engine: Engine, nodes_max: usize) -> Result<(), String> {
    use crate::harness::scenario::MAX_TURMOIL_NODES;
    match engine {
        Engine::Madsim if !crate::harness::engine::MADSIM => Err(format!(
            "--engine madsim: {}",
            crate::harness::engine::MADSIM_MISSING
        )),
        Engine::Turmoil if nodes_max > MAX_TURMOIL_NODES => Err(format!(
            "--nodes-max = {nodes_max} is above the turmoil engine's limit of \
             {MAX_TURMOIL_NODES} nodes (it runs every host at every 1 ms tick; use the native \
             engine)"
        )),
        _ => Ok(()),
    }
}

/// Says which targets need more nodes than `--nodes-min` (`Algorithm::nodes_min`): their
/// scenarios are drawn from that many up, not from the asked count.
fn note_nodes_raised(targets: &[fuzz::Target], gen: &GenOptions) {
    let mut seen = std::collections::BTreeSet::new();
    for t in targets {
        let min = t.algorithm.nodes_min();
        if min > gen.nodes_min && seen.insert(t.algorithm.info().name) {
            let raised = gen.with_nodes_at_least(min);
            eprintln!(
                "note: {} needs at least {min} nodes: its scenarios have {} to {} (not {} to {})",
                t.algorithm.info().name,
                raised.nodes_min,
                raised.nodes_max,
                gen.nodes_min,
                gen.nodes_max
            );
        }
    }
}

fn fuzz(a: FuzzArgs) -> i32 {
    // The signal handlers first, before any output is made: a signal in the first
    // milliseconds killed the process (no exit 130, an empty --out left behind, stop 73's
    // probe); caught now, it stops the campaign before it starts.
    let _ = interrupt_flag();
    if a.seeds == Some(0) {
        return bad_input("--seeds must be at least 1");
    }
    if let Err(e) = a.scenarios.check() {
        return bad_input(e);
    }
    if let Err(e) = engine_takes(a.engine, a.scenarios.nodes_max) {
        return bad_input(e);
    }
    if a.shrink_runs == Some(0) {
        return bad_input("--shrink-runs must be at least 1");
    }
    if a.max_files == 0 {
        return bad_input("--max-files must be at least 1 (every failure reported has its file)");
    }
    // u64::MAX stands for "no count" inside (`fuzz::UNBOUNDED`): given as a count, it would
    // silently run until the budget ends
    if a.seeds == Some(fuzz::UNBOUNDED) {
        return bad_input(format!(
            "--seeds {}: at most {} (for a campaign bounded by time alone, give --time and no \
             --seeds)",
            fuzz::UNBOUNDED,
            fuzz::UNBOUNDED - 1
        ));
    }
    if let Some(e) = a
        .seeds
        .and_then(|n| fuzz::seed_range_error(a.seed_start, n))
    {
        return bad_input(format!("--seed-start and --seeds: {e}"));
    }
    if let Err(e) = check_jobs(a.jobs) {
        return bad_input(e);
    }
    let mut targets = match targets(&a.algorithm, &a.variant) {
        Ok(t) => t,
        Err(e) => return bad_input(e),
    };
    // Before any seed runs: the first refused seed stopped the campaign part-way. An
    // algorithm named is refused on an engine it does not run on; one a pattern selects
    // (`all`, `omega.*`) is left out, with a note (`fuzz --engine turmoil` refused the
    // default selection, for Ω).
    let named: Vec<&str> = a.algorithm.split(',').map(str::trim).collect();
    let mut left_out: Vec<String> = Vec::new();
    let (mut refusal, mut first_why) = (None, None);
    targets.retain(|t| match t.algorithm.runs_on(a.engine.into()) {
        Ok(()) => true,
        Err(e) => {
            let name = t.algorithm.info().name;
            if named.contains(&name) {
                refusal.get_or_insert(e);
            } else {
                first_why.get_or_insert(e);
                if !left_out.iter().any(|n| n == name) {
                    left_out.push(name.to_string());
                }
            }
            false
        }
    });
    if let Some(e) = refusal.or_else(|| first_why.filter(|_| targets.is_empty())) {
        return bad_input(e);
    }
    if !left_out.is_empty() {
        eprintln!(
            "note: left out {}: it does not run on the {} engine (name it with -a to be told why)",
            left_out.join(", "),
            a.engine.name()
        );
    }
    let seeds = match (a.seeds, a.time) {
        (Some(n), _) => n,
        (None, Some(_)) => fuzz::UNBOUNDED,
        (None, None) => 1000,
    };
    // The default 1000 seeds, checked as a given count is (it was refused as a generated
    // scenario, after the header).
    if let Some(e) = fuzz::seed_range_error(a.seed_start, seeds) {
        return bad_input(format!("--seed-start {}: {e}; give --seeds", a.seed_start));
    }
    // A shard of no seed runs nothing and would pass: a CI matrix with more shards than
    // seeds would go green without fuzzing.
    // An unbounded range (--time without --seeds) still ends at the last seed, 2^64 - 1.
    let span = if seeds == fuzz::UNBOUNDED {
        (u64::MAX - a.seed_start).saturating_add(1)
    } else {
        seeds
    };
    if a.shard.count(span) == 0 {
        return bad_input(format!(
            "--shard {}: a range of {span} seeds has no seed for shard {} of {} (shards are \
             the seeds s with (s - seed-start) % {} == {}); use at most {span} shards, or \
             more seeds",
            a.shard,
            a.shard.k,
            a.shard.n,
            a.shard.n,
            a.shard.k - 1
        ));
    }
    let cfg = FuzzConfig {
        seed_start: a.seed_start,
        seeds,
        jobs: a.jobs.max(1),
        keep_going: a.keep_going,
        check_determinism: a.check_determinism,
        gen: a.scenarios.gen(GenOptions {
            beyond_model: a.beyond_model,
            engine: a.engine.into(),
            only: None,
            strategy: a.strategy.into(),
            ..GenOptions::default()
        }),
        out_dir: a.out.clone(),
        max_files: a.max_files,
        coverage: !a.no_coverage,
    };
    // Before anything is created or run (a strategy the engine cannot follow, …).
    if let Some(e) = cfg.gen.error() {
        return bad_input(e);
    }
    // One path for both: --out would be made a directory, then --junit refused as one.
    if let Some(j) = a.junit.as_deref().filter(|j| {
        *j == a.out.as_path()
            || matches!((j.canonicalize(), a.out.canonicalize()), (Ok(x), Ok(y)) if x == y)
    }) {
        return bad_input(format!(
            "--junit {} and --out name the same path: --out is the failures' directory, \
             --junit the report's file",
            j.display()
        ));
    }
    let out_existed = a.out.exists();
    if let Err(e) = prepare_out_dir(&a.out) {
        return bad_input(format!("--out: {e}"));
    }
    // A refused --junit leaves no empty --out behind (only one this command created).
    let refused = || {
        if !out_existed {
            let _ = std::fs::remove_dir(&a.out);
        }
    };
    // Checked before it is probed (which creates it): a `.json` in --out may be a failure
    // file this campaign writes and prints the replay line of.
    if let Some(j) = a
        .junit
        .as_deref()
        .filter(|j| fuzz::in_dir_as_json(j, &a.out))
    {
        refused();
        return bad_input(format!(
            "--junit {}: a .json file in --out {} may be one of the failure files this \
             campaign writes there (<alg>.<variant>.seed<N>[.shrunk].json); name it .xml, or \
             write it elsewhere",
            j.display(),
            a.out.display()
        ));
    }
    if let Some(Err(e)) = a.junit.as_deref().map(fuzz::probe_output) {
        refused();
        return bad_input(format!("--junit: {e}"));
    }
    if let Some(j) = &a.junit {
        fuzz::remove_stale_temporaries_of(j);
    }
    let opts = CampaignOptions {
        shard: a.shard,
        shrink: (!a.no_shrink).then(|| shrink_options(a.shrink_runs)),
        properties: None,
        file_tag: None,
        shrink_time: Some(a.shrink_time),
        limits: None,
    };
    note_nodes_raised(&targets, &cfg.gen);
    let stop = interrupt_flag();
    let live = Live::default();
    let started = Instant::now();
    let started_at = std::time::SystemTime::now();
    let (report, at_10s) = std::thread::scope(|s| {
        let h = s.spawn(|| fuzz::campaign(&targets, &cfg, &opts, a.time, stop, &live));
        let at_10s = monitor(&live, started, a.time, a.quiet, &|| h.is_finished());
        (
            h.join().expect("the campaign thread does not panic"),
            at_10s,
        )
    });
    let rss = Rss {
        at_10s_kib: at_10s,
        end_kib: fuzz::peak_rss_kib(),
    };
    // The report is written before the summary's closing line says how the campaign went.
    let junit = a.junit.as_ref().map(|path| {
        (
            path,
            fuzz::write_output(path, &fuzz::junit(&report, started_at, &hostname())),
        )
    });
    print!("{}", fuzz::summary(&report, rss));
    for r in &report.targets {
        if let Some((seed, msg)) = &r.bad_input {
            eprintln!(
                "error: {} / {} seed {seed}: the engine refused the generated scenario: {msg}",
                r.algorithm, r.variant
            );
        }
        for e in &r.write_errors {
            eprintln!("error: {}", for_program(e));
        }
    }
    if let Some((path, written)) = junit {
        match written {
            Ok(()) => println!("\nJUnit report: {}", path.display()),
            Err(e) => {
                eprintln!("error: cannot write {}: {e}", path.display());
                if !report.interrupted {
                    return exit::BAD_INPUT;
                }
            }
        }
    }
    fuzz::exit_code(&report)
}

/// `sincro merge-reports`.
fn merge_reports(a: &MergeArgs) -> i32 {
    let reports: Vec<&std::path::Path> = a.reports.iter().map(PathBuf::as_path).collect();
    if let Some(Err(e)) = a.junit.as_ref().map(|out| {
        crate::refuse_overwrite(
            "--junit",
            out,
            &reports,
            "one of the reports to merge",
            "that shard's report",
        )
    }) {
        return bad_input(e);
    }
    let mut inputs = Vec::new();
    for p in &a.reports {
        // A campaign's report is a few kilobytes per target: a file past the limit is no
        // such report (it was read whole, whatever its size).
        match crate::harness::scenario::read_limited(p, MAX_REPORT_BYTES) {
            Ok(xml) => inputs.push((p.display().to_string(), xml)),
            Err(e) => return bad_input(format!("cannot read {}: {e}", p.display())),
        }
    }
    let merged = match fuzz::merge_junit(&inputs, a.partial) {
        Ok(m) => m,
        Err(e) => return bad_input(e),
    };
    // The merged report is written before the summary says anything of the merge.
    if let Some(path) = &a.junit {
        if let Err(e) = fuzz::write_output(path, &merged.junit) {
            return bad_input(format!("cannot write {}: {e}", path.display()));
        }
    }
    print!("{}", merged.summary);
    if let Some(path) = &a.junit {
        println!("JUnit report: {}", path.display());
    }
    if merged.as_expected {
        exit::PASS
    } else {
        exit::VIOLATION
    }
}

/// This machine's name, for JUnit's `hostname` (`localhost` when it cannot be read).
fn hostname() -> String {
    let mut buf = [0u8; 256];
    #[cfg(unix)]
    // SAFETY: `buf` is valid for writes of `buf.len()` bytes for the whole call;
    // gethostname writes at most that many and we read only up to the first NUL inside it.
    let ok = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) } == 0;
    #[cfg(not(unix))]
    let ok = false;
    let end = buf.iter().position(|&b| b == 0).unwrap_or(0);
    match std::str::from_utf8(&buf[..end]) {
        Ok(h) if ok && !h.is_empty() => h.to_string(),
        _ => "localhost".to_string(),
    }
}

use crate::fuzz::MAX_JOBS;

/// `--jobs` within `1..=MAX_JOBS` (0 means 1).
fn check_jobs(jobs: usize) -> Result<(), String> {
    if jobs > MAX_JOBS {
        return Err(format!("--jobs = {jobs} is above the limit of {MAX_JOBS}"));
    }
    Ok(())
}

/// Creates the output directory of a campaign, checks it can be written (a probe file), and
/// removes the temporary files a killed campaign left there.
fn prepare_out_dir(dir: &std::path::Path) -> Result<(), String> {
    fuzz::probe_dir(dir)?;
    let stale = fuzz::remove_stale_temporaries(dir);
    if stale > 0 {
        eprintln!(
            "note: removed {stale} temporary file(s) a killed campaign left in {}",
            dir.display()
        );
    }
    Ok(())
}

/// The shrinker's defaults, with `--shrink-runs` if given.
fn shrink_options(runs: Option<usize>) -> ShrinkOptions {
    let mut o = ShrinkOptions::default();
    if let Some(n) = runs {
        o.max_runs = n;
    }
    o
}

/// The largest JUnit report `merge-reports` reads, bytes (64 MiB).
const MAX_REPORT_BYTES: u64 = 64 << 20;

static STOP: AtomicBool = AtomicBool::new(false);
static PRESSES: AtomicUsize = AtomicUsize::new(0);

/// The stop flag, set by the first Ctrl-C, SIGTERM or SIGHUP (what CI timeouts, `timeout`
/// and `docker stop` send): the runs in flight stop (not counted) and the reports are written. A second
/// one exits at once with code 130. The messages name the signal received (stop 56 and
/// before said "Ctrl-C" of a SIGTERM).
pub(crate) fn interrupt_flag() -> &'static AtomicBool {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        // Without handlers, a signal ends the process as it would any program: no output is
        // at risk that was not before.
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            return;
        };
        std::thread::spawn(move || {
            for signal in signals.forever() {
                on_signal(match signal {
                    SIGTERM => crate::stop::Cause::Term,
                    SIGHUP => crate::stop::Cause::Hangup,
                    _ => crate::stop::Cause::CtrlC,
                });
            }
        });
    });
    &STOP
}

/// A signal this soon after the first is the same stop, not a second one: coreutils'
/// `timeout` sends its SIGTERM to the command and then to its process group, so the command
/// receives it twice within microseconds (stop 57: a campaign under `timeout` sometimes quit
/// at once, its summary and JUnit report lost).
pub(crate) const REPEAT_WINDOW: Duration = Duration::from_secs(1);

/// Whether a signal `since_first` after the first one quits at once.
pub(crate) fn quits_at_once(since_first: Duration) -> bool {
    since_first >= REPEAT_WINDOW
}

/// The first stop signal sets the stop flag; another one, from [`REPEAT_WINDOW`] after it,
/// exits at once with code 130 (and says so).
fn on_signal(cause: crate::stop::Cause) {
    static FIRST: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    if PRESSES.fetch_add(1, Ordering::SeqCst) > 0 {
        let first = *FIRST.get_or_init(Instant::now);
        if quits_at_once(first.elapsed()) {
            eprintln!("\ninterrupted again: quitting at once; what was not yet written is lost");
            std::process::exit(fuzz::INTERRUPTED_EXIT);
        }
        return;
    }
    let _ = FIRST.set(Instant::now());
    crate::stop::record(cause);
    STOP.store(true, Ordering::SeqCst);
    eprintln!(
        "\ninterrupted ({}): stopping the runs in flight (not counted) and writing what \
         was found (Ctrl-C, SIGTERM or SIGHUP again, a second or more later, quits at once)",
        crate::stop::cause()
    );
}

/// Shows progress until `done()`: an indicatif bar on a terminal, a line every 5 s otherwise,
/// nothing with `quiet`. Returns the peak RSS sampled after 10 s when there is a budget.
fn monitor(
    live: &Live,
    started: Instant,
    budget: Option<Duration>,
    quiet: bool,
    done: &dyn Fn() -> bool,
) -> Option<u64> {
    let tty = std::io::stderr().is_terminal();
    let bar = if quiet || !tty {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(0)
    };
    let say = |line: String| {
        if quiet {
        } else if bar.is_hidden() {
            eprintln!("{line}");
        } else {
            bar.println(line);
        }
    };
    let mut shown: Option<String> = None;
    let mut last_line = Instant::now();
    let mut at_10s = None;
    let mut sampled = budget.is_none();
    let mut stalls = fuzz::StallWatch::default();
    loop {
        let finished = done();
        for note in live.take_notes() {
            say(note);
        }
        for seed in stalls.look(&live.running.snapshot(), Instant::now()) {
            // Said even with --quiet: a campaign that seems to hang must say why.
            let target = live.current.lock().expect("no poisoning").clone();
            let line = format!(
                "{}seed {seed} has run for {} s without returning: a long run, or a callback \
                 that never returns (one looping without a send, timer or observation cannot \
                 be stopped inside a run; Ctrl-C twice quits)",
                target.map_or(String::new(), |(name, _)| format!("{name}: ")),
                fuzz::LONG_RUN.as_secs()
            );
            if bar.is_hidden() {
                eprintln!("{line}");
            } else {
                bar.println(line);
            }
        }
        let current = live.current.lock().expect("no poisoning").clone();
        let runs = live.runs.load(Ordering::Relaxed);
        let failures = live.failures.load(Ordering::Relaxed);
        let caught = live.caught.load(Ordering::Relaxed);
        let elapsed = started.elapsed();
        let rate = runs as f64 / elapsed.as_secs_f64().max(1e-9);
        if let Some((name, seeds)) = &current {
            if shown.as_ref() != Some(name) {
                shown = Some(name.clone());
                let (template, len) = match (seeds, budget) {
                    (&s, _) if s != fuzz::UNBOUNDED => {
                        ("{prefix:34} [{bar:30}] {pos}/{len} seeds  {msg}", s)
                    }
                    (_, Some(b)) => ("{prefix:34} [{bar:30}] {msg}", b.as_millis() as u64),
                    _ => ("{prefix:34} {spinner} {msg}", 0),
                };
                bar.set_style(
                    ProgressStyle::with_template(template)
                        .expect("valid template")
                        .progress_chars("=> "),
                );
                bar.set_length(len);
                bar.set_prefix(name.clone());
            }
            if *seeds != fuzz::UNBOUNDED {
                bar.set_position(live.target_runs.load(Ordering::Relaxed));
            } else if budget.is_some() {
                bar.set_position(elapsed.as_millis() as u64);
            }
            bar.set_message(format!(
                "{runs} runs  {rate:.0} runs/s  {caught} bugs caught  {failures} failures of correct variants  {:.0} s",
                elapsed.as_secs_f64()
            ));
            if !quiet && !tty && last_line.elapsed() >= Duration::from_secs(5) && !finished {
                last_line = Instant::now();
                eprintln!(
                    "[{:>5.0} s] {name}: {runs} runs, {rate:.0} runs/s; campaign so far: {caught} bugs caught, {failures} failures of correct variants",
                    elapsed.as_secs_f64()
                );
            }
        }
        if !sampled && elapsed >= Duration::from_secs(10) {
            sampled = true;
            at_10s = fuzz::peak_rss_kib();
            say(format!(
                "peak RSS after 10 s of campaign: {}",
                fuzz::format_kib(at_10s)
            ));
        }
        if finished {
            break;
        }
        // Redraw every 100 ms, but notice the end within 2 ms: a short campaign does not wait
        // out a whole 100 ms tick before it exits.
        let tick = Instant::now();
        while tick.elapsed() < Duration::from_millis(100) && !done() {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    bar.finish_and_clear();
    at_10s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An error quoting a name with an escape sequence or a right-to-left override prints
    /// them escaped; its line breaks and tabs stay.
    #[test]
    fn errors_escape_what_would_drive_the_terminal() {
        assert_eq!(
            terminal_safe("cannot read a\u{1b}[2Jb:\n\tkey x\u{202e}y\u{7}"),
            "cannot read a\\u{1b}[2Jb:\n\tkey x\\u{202e}y\\u{7}"
        );
        assert_eq!(terminal_safe("plain é"), "plain é");
    }

    /// A user's program names itself in the help's command lines, not `sincro`; names that
    /// only contain the word (`lease-sincro`, `sincro::testing`, `Sincro:`) are left alone.
    #[test]
    fn a_users_program_names_itself_in_the_help() {
        assert_eq!(
            program_in_text(
                "Example: sincro explore -a x (as `sincro replay`); sincro::testing, \
                 lease-sincro run, Sincro: sincro",
                "my-sim"
            ),
            "Example: my-sim explore -a x (as `my-sim replay`); sincro::testing, \
             lease-sincro run, Sincro: sincro"
        );
        // the example binary of a build command becomes the user's own, by its file name;
        // Sincro's own, run by its path, keeps the example
        let hint = |program| program_in_text(crate::harness::engine::MADSIM_MISSING, program);
        assert!(hint("my-sim").contains("--features cli --bin my-sim;"));
        assert!(hint("target/release/my-sim").contains("--features cli --bin my-sim;"));
        assert!(hint("target/release/sincro").contains("--features cli --bin lease-sincro;"));
        let mut c = named_in_help(<Cli as clap::CommandFactory>::command(), "my-sim");
        let explore = c
            .find_subcommand_mut("explore")
            .expect("explore")
            .render_long_help()
            .to_string();
        assert!(
            explore.contains("Example: my-sim explore -a mutex.ricart-agrawala"),
            "{explore}"
        );
        let show = c
            .find_subcommand_mut("show")
            .expect("show")
            .render_long_help()
            .to_string();
        assert!(!show.contains("sincro "), "{show}");
        let merge = c
            .find_subcommand_mut("merge-reports")
            .expect("merge-reports")
            .render_long_help()
            .to_string();
        assert!(merge.contains("`my-sim fuzz --junit`"), "{merge}");
    }
}
