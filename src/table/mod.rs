//! `sincro table <which>`: the seed texts' tables and formulas, measured in simulation.
//!
//! One module per table; [`main`] dispatches on the table's name. The modules write their
//! tables as Markdown with `println!`, which here means [`sink::line`]: a terminal gets them
//! laid out within 100 columns, `--markdown` the Markdown itself.

// Declared before the macro: its own printing is the standard `println!`.
pub mod sink;

/// The tables' `println!`: every line goes through [`sink::line`] (in scope in the modules
/// declared below it, where it shadows the standard one).
macro_rules! println {
    () => {
        $crate::table::sink::line(String::new())
    };
    ($($arg:tt)*) => {
        $crate::table::sink::line(format!($($arg)*))
    };
}

pub mod clocks;
pub mod election;
pub mod mutex;
pub mod omega;
pub mod positioning;
pub mod progress;
pub mod search;
pub mod shrink;

pub use mutex::{
    measure, utilization, violation_probability, voting_experiment, voting_table, wilson, Measure,
};

/// Known tables, with what each shows (for errors and `--help`).
pub const TABLES: &[(&str, &str)] = &[
    (
        "mutex",
        "Table 6.1: messages per entry/exit and delay before entry, measured vs the book, with the decentralized row",
    ),
    (
        "positioning",
        "node positioning (§6.4): GNP and Vivaldi relative error percentiles and pairs within a factor of 2 at 2, 3, 5, 7 dimensions; Vivaldi over time",
    ),
    (
        "clocks",
        "physical clock sync: max skew vs bound over rho, delay spread, period; 2ρΔt; problem 2; RBS avg vs regression under drift and jitter; resync every δ/2ρ run",
    ),
    (
        "election",
        "leader election: messages against n (Chang–Roberts best/worst, Franklin, Anel 2, ring, bully) and DHT superpeers",
    ),
    (
        "omega",
        "Ω (seed 004): stabilization time in steps and leader changes, p50/p90/max, against α and n; where α binds (|STABLE| = α)",
    ),
    (
        "search",
        "search strategies against every planted bug: failing-seed rate and median seeds to find, random vs the default mix (--strategy for others)",
    ),
    (
        "shrink",
        "shrunk sizes of every planted bug's first failures, with the failing run's schedule kept against delays redrawn from the seed",
    ),
    (
        "voting",
        "decentralized voting: violation probability computed vs measured; the text's n = 32, m = 24 example (< 1e-40); utilization",
    ),
];

/// Options of `sincro table`.
#[derive(clap::Args, Clone, Debug)]
pub struct TableArgs {
    /// Which table: mutex (Table 6.1), voting (decentralized voting's violation probability
    /// and utilization), clocks, election, omega, positioning, search (how each search strategy
    /// finds the planted bugs), shrink (shrunk sizes with the failing run's schedule kept and
    /// with delays redrawn).
    pub which: String,
    /// `voting`: seeded runs per (n, m, p), 1 to 100000 [default: 2000]; `omega`: seeded runs
    /// per row, 1 to 200 [default: 200].
    #[arg(long)]
    pub runs: Option<u64>,
    /// `voting`: reset probabilities p to measure, each within [0, 1] [default:
    /// 0.05,0.1,0.2,0.3,0.5].
    #[arg(long, value_delimiter = ',')]
    pub p: Vec<f64>,
    /// Node counts to measure (comma-separated), for `mutex` [default: 3,5,10,20],
    /// `election` [default: 8,64,256,1000], `omega` [default: 4,8,12], `positioning` [default: 64]
    /// and `clocks` (one count, 3 ..= 16) [default: 5].
    #[arg(long, value_delimiter = ',')]
    pub n: Vec<usize>,
    /// `search`: seeds per (buggy variant, strategy), 20 ..= 1,000,000 [default: 20000];
    /// `shrink`: seeds searched per buggy variant for its first 5 failures, 1 ..= 1,000,000
    /// [default: 2000].
    #[arg(long)]
    pub seeds: Option<u64>,
    /// `search`: strategies to compare (mix, random, pct, pos, moments, and `guided`: the mix
    /// with coverage guidance, as `fuzz` runs it) [default: random,mix].
    #[arg(long, value_delimiter = ',', value_parser = crate::list_item)]
    pub strategy: Vec<String>,
    /// `search`, `shrink`: algorithms whose buggy variants to measure (`all`, a name, a glob,
    /// a list).
    #[arg(long, short)]
    pub algorithm: Option<String>,
    /// `search`, `shrink`: worker threads, 1 to 256 (0 is taken as 1) [default: 1].
    #[arg(long, short)]
    pub jobs: Option<usize>,
    /// Print the tables as Markdown (for a README) instead of laid out within 100 columns.
    #[arg(long)]
    pub markdown: bool,
}

impl TableArgs {
    /// `--n` if given, else the table's default.
    pub fn n_or(&self, default: &[usize]) -> Vec<usize> {
        if self.n.is_empty() {
            default.to_vec()
        } else {
            self.n.clone()
        }
    }
}

/// Runs `sincro table`; returns the exit code.
pub fn main(args: &TableArgs) -> i32 {
    sink::set_markdown(args.markdown);
    flush_on_signal();
    let code = progress::while_running(|| dispatch(args));
    sink::flush();
    code
}

/// On Ctrl-C, SIGTERM or SIGHUP: prints the rows measured so far and exits 130. The terminal
/// layout holds a block's rows until the block ends, so a signal lost every row of a table
/// still being measured (stop 57: `table search` interrupted after 7 of its 8 rows printed
/// only its title).
fn flush_on_signal() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    use std::io::Write as _;
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            sink::flush();
            let _ = std::io::stdout().flush();
            let name = match signal {
                SIGTERM => "SIGTERM",
                SIGHUP => "SIGHUP",
                _ => "Ctrl-C",
            };
            eprintln!("interrupted ({name}): the rows printed are those measured before it");
            // On standard output too: what is pasted from it must not read as the whole
            // table (stop 64: only stderr said so, and the closing summary was just missing).
            let _ = writeln!(
                std::io::stdout(),
                "\nINTERRUPTED ({name}): partial, only the rows measured before it are above"
            );
            let _ = std::io::stdout().flush();
            std::process::exit(crate::fuzz::INTERRUPTED_EXIT);
        }
    });
}

/// The options each table reads; any other given is refused, not silently ignored.
const READS: &[(&str, &[&str])] = &[
    ("mutex", &["--n"]),
    ("positioning", &["--n"]),
    ("clocks", &["--n"]),
    ("election", &["--n"]),
    ("omega", &["--n", "--runs"]),
    (
        "search",
        &["--seeds", "--strategy", "--algorithm", "--jobs"],
    ),
    ("shrink", &["--seeds", "--algorithm", "--jobs"]),
    ("voting", &["--runs", "--p"]),
];

/// The first option given that table `which` does not read, if any.
fn unread_option(args: &TableArgs, which: &str) -> Option<&'static str> {
    let given = [
        ("--n", !args.n.is_empty()),
        ("--runs", args.runs.is_some()),
        ("--p", !args.p.is_empty()),
        ("--seeds", args.seeds.is_some()),
        ("--strategy", !args.strategy.is_empty()),
        ("--algorithm", args.algorithm.is_some()),
        ("--jobs", args.jobs.is_some()),
    ];
    let reads = READS.iter().find(|(t, _)| *t == which)?.1;
    given
        .into_iter()
        .find(|(name, on)| *on && !reads.contains(name))
        .map(|(name, _)| name)
}

/// A row a table could not measure: which, and the exit code of why (a violation 1, a panic
/// 3, a run limit 4, could not judge 6, as `run` gives them; a scenario the algorithm refused
/// 2). A limit hit at n = 200 exited 1, the code of a violated property.
#[derive(Debug)]
pub struct RowFailure {
    /// The row and what went wrong.
    pub what: String,
    /// The exit code it calls for.
    pub code: i32,
}

impl RowFailure {
    /// Row `row`'s run ended with `verdict`, which is not a pass.
    pub fn of(row: String, verdict: &crate::harness::Verdict) -> Self {
        RowFailure {
            what: format!("{row}: {verdict}"),
            code: crate::exit_code(verdict),
        }
    }

    /// The algorithm refused the row's scenario.
    pub fn bad_input(what: String) -> Self {
        RowFailure {
            what,
            code: crate::exit::BAD_INPUT,
        }
    }

    /// The exit code of a verdict by its label (`violation:…`, `limit_exceeded`,
    /// `unjudged:…`, `panic`, `nondeterministic`), for rows that keep only the label.
    pub fn code_of_label(label: &str) -> i32 {
        match label.split(':').next().unwrap_or_default() {
            "limit_exceeded" => crate::exit::LIMIT,
            "unjudged" => crate::exit::UNJUDGED,
            "panic" => crate::exit::PANIC,
            "nondeterministic" => crate::exit::NONDETERMINISM,
            _ => crate::exit::VIOLATION,
        }
    }
}

/// The algorithms `--algorithm` selects (`all` by default) for a table measured on buggy
/// variants (`search`, `shrink`); a selection that cannot be read, or that has no buggy
/// variant (`for_what` ends the message: what the table would do with one), is said on
/// standard error and gives the exit code.
fn buggy_selection(
    args: &TableArgs,
    for_what: &str,
) -> Result<Vec<&'static dyn crate::algorithms::Algorithm>, i32> {
    let spec = args.algorithm.as_deref().unwrap_or("all");
    let algs = crate::algorithms::select(spec).map_err(|e| {
        eprintln!("error: --algorithm: {e}");
        crate::exit::BAD_INPUT
    })?;
    // An empty table measures nothing: as `calibrate`, a selection with no bug is refused.
    if !algs
        .iter()
        .any(|a| a.info().variants.iter().any(|v| v.buggy))
    {
        eprintln!("error: --algorithm {spec}: no buggy variant {for_what}");
        return Err(crate::exit::BAD_INPUT);
    }
    Ok(algs)
}

/// A row measured wrong (a count its formula contradicts, nothing entered): the table's
/// claim fails, exit 1.
impl From<String> for RowFailure {
    fn from(what: String) -> Self {
        RowFailure {
            what,
            code: crate::exit::VIOLATION,
        }
    }
}

impl std::fmt::Display for RowFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.what)
    }
}

/// The first value of `list` given again later in it.
fn first_repeat<T: PartialEq>(list: &[T]) -> Option<&T> {
    list.iter()
        .enumerate()
        .find(|(i, v)| list[..*i].contains(v))
        .map(|(_, v)| v)
}

/// Most seeded runs per cell of `table voting`.
pub const VOTING_RUNS_MAX: u64 = 100_000;

fn dispatch(args: &TableArgs) -> i32 {
    let max = crate::harness::scenario::MAX_NODES;
    if let Some(n) = args.n.iter().find(|&&n| n > max) {
        eprintln!("error: --n = {n} is above the limit of {max} nodes a scenario may have");
        return crate::exit::BAD_INPUT;
    }
    // A value given twice would print its rows twice (`--strategy` is refused likewise).
    if let Some(n) = first_repeat(&args.n) {
        eprintln!("error: --n names `{n}` twice");
        return crate::exit::BAD_INPUT;
    }
    if let Some(p) = first_repeat(&args.p) {
        eprintln!("error: --p names `{p}` twice");
        return crate::exit::BAD_INPUT;
    }
    if let Some(option) = unread_option(args, &args.which) {
        let reads = READS
            .iter()
            .find(|(t, _)| *t == args.which)
            .map_or(String::new(), |(_, r)| r.join(", "));
        eprintln!(
            "error: {option} is not an option of `table {}` (it reads {})",
            args.which,
            if reads.is_empty() { "none" } else { &reads }
        );
        return crate::exit::BAD_INPUT;
    }
    match args.which.as_str() {
        "mutex" => mutex::main(args),
        "positioning" => positioning::main(args),
        "clocks" => clocks::main(args),
        "election" => election::main(args),
        "omega" => omega::main(args),
        "search" => search::main(args),
        "shrink" => shrink::main(args),
        "voting" => {
            let runs = args.runs.unwrap_or(2000);
            if !(1..=VOTING_RUNS_MAX).contains(&runs) {
                eprintln!("error: --runs = {runs} is outside [1, {VOTING_RUNS_MAX}]");
                return crate::exit::BAD_INPUT;
            }
            if let Some(p) = args.p.iter().find(|p| !(0.0..=1.0).contains(*p)) {
                eprintln!("error: --p = {p} is outside [0, 1] (a probability)");
                return crate::exit::BAD_INPUT;
            }
            let ps = if args.p.is_empty() {
                vec![0.05, 0.1, 0.2, 0.3, 0.5]
            } else {
                args.p.clone()
            };
            mutex::voting_table(runs, &ps)
        }
        other => {
            let known: Vec<String> = TABLES
                .iter()
                .map(|(name, what)| format!("  {name}: {what}"))
                .collect();
            eprintln!(
                "error: unknown table `{other}`; known tables:\n{}",
                known.join("\n")
            );
            crate::exit::BAD_INPUT
        }
    }
}

#[cfg(test)]
mod tests {
    use super::RowFailure;
    use crate::exit;
    use crate::harness::Verdict;

    /// A row's failure exits with its verdict's code, as `run` would: a run limit at n = 200
    /// exited 1, the code of a violated property.
    #[test]
    fn a_row_failure_exits_with_its_verdicts_code() {
        let limit = Verdict::LimitExceeded {
            limit: "limits.max_events".into(),
        };
        assert_eq!(RowFailure::of("r".into(), &limit).code, exit::LIMIT);
        for (label, code) in [
            ("violation:leader_uniqueness", exit::VIOLATION),
            ("limit_exceeded", exit::LIMIT),
            ("unjudged:leader_agreement", exit::UNJUDGED),
            ("panic", exit::PANIC),
            ("nondeterministic", exit::NONDETERMINISM),
        ] {
            assert_eq!(RowFailure::code_of_label(label), code, "{label}");
        }
        assert_eq!(RowFailure::bad_input("x".into()).code, exit::BAD_INPUT);
    }
}

#[cfg(test)]
mod help_tests {
    /// `--n`'s help gives each table's default, and they are the ones the tables use.
    #[test]
    fn the_n_help_gives_the_defaults_the_tables_use() {
        let help = <super::TableArgs as clap::Args>::augment_args(clap::Command::new("t"))
            .render_long_help()
            .to_string();
        let election: Vec<String> = super::election::DEFAULT_N
            .iter()
            .map(|n| n.to_string())
            .collect();
        for default in [
            "`mutex` [default: 3,5,10,20]".to_string(),
            format!("`election` [default: {}]", election.join(",")),
        ] {
            assert!(help.contains(&default), "{default}: {help}");
        }
    }
}
