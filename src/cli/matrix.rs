//! `sincro matrix`: the measured fault-tolerance matrix.
//!
//! For each algorithm (its correct variant) and each fault class, scenarios are generated whose
//! swarm is exactly that one class (delays are always on), and each declared property is checked
//! on its own over the same seeds. A cell says whether the property held, or where it broke with
//! the shrunk counterexample, written to `--out`. A break of a class inside the algorithm's
//! declared fault model is a regression (exit 1); outside it, a break is the measured version of
//! the textbook's "problems" column.

use super::{interrupt_flag, shrink_options};
use crate::algorithms::{self, Algorithm};
use crate::exit;
use crate::fuzz::{self, CampaignOptions, FuzzConfig, Live, Target, TargetReport, TargetRun};
use crate::harness::fault::FaultClass;
use crate::harness::gen::GenOptions;
use indicatif::{ProgressBar, ProgressStyle};
use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Options of `sincro matrix`.
#[derive(clap::Args)]
pub struct MatrixArgs {
    /// Algorithms: `all`, a name, a family glob (`clock.*`), or a comma list; `!` excludes.
    #[arg(long, short, default_value = "all")]
    algorithm: String,
    /// Seeds per cell (one fault class, one property).
    #[arg(long, default_value_t = 100)]
    seeds: u64,
    /// First seed.
    #[arg(long, default_value_t = 0)]
    seed_start: u64,
    /// Worker threads, 1 to 256 (0 is taken as 1): each runs one cell at a time, its seeds in
    /// order (each run single-threaded and deterministic), so the matrix and its files are the
    /// same whatever the count.
    #[arg(long, short, default_value_t = 1)]
    jobs: usize,
    /// Directory for the counterexamples
    /// (`<alg>.<variant>.<class>.<property>.seed<N>[.shrunk].json`).
    #[arg(long, default_value = "failures/matrix")]
    out: PathBuf,
    /// Also write the matrix as Markdown to this file (the terminal gets it laid out within
    /// 100 columns).
    #[arg(long, value_name = "FILE")]
    markdown: Option<PathBuf>,
    /// At most this many candidate runs when shrinking one counterexample.
    #[arg(long, value_name = "N")]
    shrink_runs: Option<usize>,
    /// Wall-clock budget for the whole matrix, e.g. 90s, 5m. The time left is split evenly
    /// among the cells still to run (a cell that ends early hands its leftover on); a cell cut
    /// short says how many of its seeds ran, and cells never reached are listed. A partial
    /// matrix still fails (exit 1) on a break inside a declared fault model, and on a cell
    /// inside one that never ran (it is not shown to hold).
    #[arg(long, value_name = "DURATION", value_parser = fuzz::parse_duration)]
    time: Option<std::time::Duration>,
    /// No progress display on stderr.
    #[arg(long, short)]
    quiet: bool,
}

/// One row: a fault class and, per property, what fuzzing found.
struct Row {
    class: FaultClass,
    in_model: bool,
    /// Per property; `None` for a cell an interruption left unrun.
    cells: Vec<Option<TargetReport>>,
}

/// One cell to run: a property of an algorithm's correct variant under one fault class.
struct Cell {
    /// Where its report goes: table, row and property column.
    table: usize,
    row: usize,
    property_index: usize,
    property: &'static str,
    class: FaultClass,
    in_model: bool,
    target: Target,
}

/// What running one cell gave.
struct CellRan {
    report: TargetReport,
    /// Runs made (shrinking's candidates not counted).
    runs: u64,
    /// False when the time was up before it could start (one that started may still have
    /// run no seed: its report's `runs` says).
    started: bool,
}

/// The cells and the workers that run them, each taking the next cell in order.
struct CellPool<'a> {
    args: &'a MatrixArgs,
    jobs: &'a [Cell],
    next: AtomicUsize,
    done: Mutex<Vec<Option<CellRan>>>,
    /// Set when a cell inside its fault model was refused: no further cell starts.
    halt: AtomicBool,
    deadline: Option<Instant>,
    workers: usize,
    bar: &'a ProgressBar,
}

impl CellPool<'_> {
    /// One worker: runs cells until none is left, `stop` (Ctrl-C) or a refusal.
    fn work(&self, stop: &AtomicBool) {
        while !stop.load(Ordering::Relaxed) && !self.halt.load(Ordering::Relaxed) {
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            let Some(cell) = self.jobs.get(i) else {
                return;
            };
            let ran = self.run(cell, self.jobs.len() - i, stop);
            if cell.in_model && ran.report.bad_input.is_some() {
                self.halt.store(true, Ordering::Relaxed);
            }
            self.done.lock().expect("no poisoning")[i] = Some(ran);
            self.bar.inc(1);
        }
    }

    /// Runs `cell`, with `left` cells (itself included) still to start.
    fn run(&self, cell: &Cell, left: usize, stop: &AtomicBool) -> CellRan {
        let a = self.args;
        let property = cell.property;
        self.bar.set_message(format!(
            "{} / {} / {property}",
            cell.target.name(),
            cell.class.name()
        ));
        let cfg = FuzzConfig {
            seed_start: a.seed_start,
            seeds: a.seeds,
            jobs: 1,
            keep_going: false,
            check_determinism: false,
            gen: GenOptions {
                only: Some(cell.class),
                ..GenOptions::default()
            },
            out_dir: a.out.clone(),
            max_files: 1,
            // The matrix judges each class alone, from plain generated scenarios.
            coverage: false,
        };
        let opts = CampaignOptions {
            shrink: Some(shrink_options(a.shrink_runs)),
            properties: Some(vec![property.to_string()]),
            file_tag: Some(format!("{}.{property}", cell.class.name())),
            ..CampaignOptions::default()
        };
        let live = Live::default();
        // The matrix's budget caps its shrinks too (stop 64: a message storm's shrink ran a
        // `--time 2s` matrix to 10-15 s).
        let mut run = TargetRun::new(&cell.target, &cfg, &opts).with_deadline(self.deadline);
        // This cell's share of the time left: the workers run `min(workers, left)` of the
        // cells left at once (a cell that ends early hands its leftover on).
        let cell_deadline = self.deadline.map(|d| {
            let now = Instant::now();
            let left_time = d.saturating_duration_since(now);
            let at_once = u32::try_from(self.workers.min(left)).unwrap_or(1);
            let share = u32::try_from(left.max(1)).map_or(Duration::ZERO, |l| {
                left_time.checked_mul(at_once).unwrap_or(left_time) / l
            });
            now + share.min(left_time)
        });
        let started = cell_deadline.is_none_or(|d| d > Instant::now());
        if started {
            run.run(stop, cell_deadline, &live, &|_| {});
        }
        let mut report = run.report();
        // A seed that could not be judged (or hit a run limit) is no answer: the cell goes on
        // from the next seed, and a later break is the cell's verdict (stop 70's probe: a
        // cell stopped at an unjudged seed 0 said "could not judge" where seed 1 breaks).
        // The first seed with no answer stands when nothing breaks.
        let no_answer = |r: &TargetReport| {
            r.first
                .as_ref()
                .filter(|f| Outcome::of(&f.label) != Outcome::Breaks)
                .map(|f| f.seed)
        };
        // The first report with no answer, and the runs of the segments before `report`.
        let mut unanswered: Option<TargetReport> = None;
        let mut runs_before = 0;
        while let Some(seed) = no_answer(&report) {
            runs_before += report.runs;
            match &mut unanswered {
                None => unanswered = Some(report.clone()),
                Some(first) => first
                    .write_errors
                    .extend(report.write_errors.iter().cloned()),
            }
            // Seeds from `seed_start` through `seed` are done.
            let next = seed.checked_add(1);
            let done = next.map_or(a.seeds, |n| n.saturating_sub(a.seed_start));
            let time_up =
                stop.load(Ordering::Relaxed) || cell_deadline.is_some_and(|d| Instant::now() >= d);
            let Some(next) = next.filter(|_| done < a.seeds && !time_up) else {
                report = unanswered.take().expect("kept above");
                report.runs = runs_before;
                report.complete = done >= a.seeds;
                break;
            };
            let cfg = FuzzConfig {
                seed_start: next,
                seeds: a.seeds - done,
                ..cfg.clone()
            };
            let mut more = TargetRun::new(&cell.target, &cfg, &opts).with_deadline(self.deadline);
            more.run(stop, cell_deadline, &live, &|_| {});
            report = more.report();
        }
        if let Some(mut first) = unanswered {
            // The last segment broke the property, or held to its end.
            first
                .write_errors
                .extend(report.write_errors.iter().cloned());
            if report.first.is_some() {
                report.write_errors = first.write_errors;
                report.runs += runs_before;
            } else {
                first.runs = runs_before + report.runs;
                first.complete = report.complete;
                report = first;
            }
        }
        CellRan {
            report,
            runs: live.runs.load(Ordering::Relaxed),
            started,
        }
    }
}

/// The matrix of one algorithm.
struct Table {
    algorithm: &'static str,
    variant: &'static str,
    properties: Vec<&'static str>,
    model: String,
    rows: Vec<Row>,
}

/// The first 8 of `cells`, joined, and how many more.
fn listed(cells: &[String]) -> String {
    const SHOWN: usize = 8;
    let mut out = cells[..cells.len().min(SHOWN)].join(", ");
    if cells.len() > SHOWN {
        out.push_str(&format!(" and {} more", cells.len() - SHOWN));
    }
    out
}

/// What a cell's first unexpected run was: a property broken (a violation or a panic), or no
/// answer (a checker could not judge the run, or it hit a run limit), which is not a break.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    Breaks,
    Unjudged,
    Limit,
}

impl Outcome {
    fn of(label: &str) -> Outcome {
        if label.starts_with("unjudged") {
            Outcome::Unjudged
        } else if label.starts_with("limit_exceeded") {
            Outcome::Limit
        } else {
            Outcome::Breaks
        }
    }
}

fn cell_text(r: Option<&TargetReport>, seeds: u64) -> String {
    let Some(r) = r else {
        return "not run (interrupted)".to_string();
    };
    if let Some((seed, msg)) = &r.bad_input {
        // Only outside the model (inside, a refusal ends the matrix as bad input).
        return format!("cannot run: the algorithm refuses such scenarios (seed {seed}: {msg})");
    }
    match &r.first {
        None if r.runs >= seeds => format!("holds ({} seeds)", r.runs),
        None if r.runs == 0 => "not run (out of time)".to_string(),
        None => format!("holds ({} of {seeds} seeds, cut short)", r.runs),
        Some(f) => {
            let (kind, what) = match Outcome::of(&f.label) {
                Outcome::Breaks => (
                    "breaks",
                    f.label.strip_prefix("violation:").unwrap_or(&f.label),
                ),
                Outcome::Unjudged => (
                    "could not judge",
                    f.label.strip_prefix("unjudged:").unwrap_or(&f.label),
                ),
                Outcome::Limit => ("run limit hit", f.label.as_str()),
            };
            let size = match (&f.shrunk, &f.size) {
                (Some(sh), _) => format!(
                    "shrunk to {} faults / {} inputs",
                    sh.size.faults, sh.size.inputs
                ),
                (None, Some(s)) => format!("{} faults / {} inputs", s.faults, s.inputs),
                (None, None) => "not written".into(),
            };
            format!("{kind}: {what} (seed {}, {size})", f.seed)
        }
    }
}

/// One algorithm: heading, fault model, table, counterexamples; the table as aligned Markdown,
/// or (`terminal`) laid out within 100 columns with its cells wrapped.
fn render(t: &Table, seeds: u64, terminal: bool) -> String {
    let mut head = vec!["fault class".to_string(), "in model".to_string()];
    head.extend(t.properties.iter().map(|p| p.to_string()));
    let body: Vec<Vec<String>> = t
        .rows
        .iter()
        .map(|r| {
            let mut v = vec![
                r.class.name().to_string(),
                if r.in_model { "yes" } else { "no" }.to_string(),
            ];
            v.extend(r.cells.iter().map(|c| cell_text(c.as_ref(), seeds)));
            v
        })
        .collect();
    let widths: Vec<usize> = (0..head.len())
        .map(|i| {
            body.iter()
                .map(|r| r[i].chars().count())
                .chain([head[i].chars().count(), 3])
                .max()
                .unwrap_or(3)
        })
        .collect();
    let line = |cells: &[String]| {
        let mut l = String::from("|");
        for (c, w) in cells.iter().zip(&widths) {
            let _ = write!(l, " {c:<w$} |");
        }
        l.push('\n');
        l
    };
    let model = format!("fault model: {}", t.model);
    let mut s = format!(
        "## {} (variant `{}`, {seeds} seeds per cell)\n\n{}\n",
        t.algorithm,
        t.variant,
        if terminal {
            super::grid::wrap(&model, 0)
        } else {
            model + "\n"
        }
    );
    if terminal {
        let mut grid = super::grid::Grid::new(&head);
        for r in &body {
            grid.row(r.iter());
        }
        s.push_str(&grid.text());
    } else {
        s.push_str(&line(&head));
        let rule: Vec<String> = widths.iter().map(|&w| "-".repeat(w)).collect();
        s.push_str(&line(&rule));
        for r in &body {
            s.push_str(&line(r));
        }
    }
    let mut examples = String::new();
    for r in &t.rows {
        for (p, c) in t.properties.iter().zip(&r.cells) {
            let Some(f) = c.as_ref().and_then(|c| c.first.as_ref()) else {
                continue;
            };
            let file = f
                .shrunk
                .as_ref()
                .and_then(|sh| sh.path.as_ref())
                .or(f.path.as_ref());
            let inside = match Outcome::of(&f.label) {
                Outcome::Breaks => " (INSIDE the fault model: regression)",
                Outcome::Unjudged => " (INSIDE the fault model: could not judge)",
                Outcome::Limit => " (INSIDE the fault model: run limit hit)",
            };
            // The replay command on a line of its own: beside the cell's name it made lines
            // of up to 190 columns (stop 64's probe).
            let _ = writeln!(
                examples,
                "- {}{} / {p}: seed {}, {}{}",
                r.class.name(),
                if r.in_model { inside } else { "" },
                f.seed,
                f.label,
                file.map_or(" (not written)".into(), |p| format!(
                    "\n  `{}`",
                    crate::replay_command(p, None)
                )),
            );
        }
    }
    if !examples.is_empty() {
        // Counterexamples are shrunk; a run that could not be judged or hit a limit is listed
        // as it was found (nothing to shrink to).
        s.push_str("\nCounterexamples (shrunk) and runs with no answer:\n\n");
        s.push_str(&examples);
    }
    s
}

/// Runs `sincro matrix`; returns the exit code.
pub fn main(a: &MatrixArgs) -> i32 {
    // The signal handlers first, before any output is made: a signal in the first
    // milliseconds killed the process (no exit 130, an empty --out left behind, stop 73's
    // probe); caught now, it stops the campaign before it starts.
    let _ = interrupt_flag();
    if a.seeds == 0 {
        eprintln!("error: --seeds must be at least 1");
        return exit::BAD_INPUT;
    }
    // u64::MAX stands for "no count" inside (`fuzz::UNBOUNDED`): as a count, every cell ran
    // one seed and said "cut short", and the range check let it through
    if a.seeds == crate::fuzz::UNBOUNDED {
        eprintln!(
            "error: --seeds {}: at most {}",
            crate::fuzz::UNBOUNDED,
            crate::fuzz::UNBOUNDED - 1
        );
        return exit::BAD_INPUT;
    }
    if a.shrink_runs == Some(0) {
        eprintln!("error: --shrink-runs must be at least 1");
        return exit::BAD_INPUT;
    }
    if let Some(e) = crate::fuzz::seed_range_error(a.seed_start, a.seeds) {
        eprintln!("error: --seed-start and --seeds: {e}");
        return exit::BAD_INPUT;
    }
    if let Err(e) = super::check_jobs(a.jobs) {
        eprintln!("error: {}", super::for_program(&e.to_string()));
        return exit::BAD_INPUT;
    }
    let algs: Vec<&'static dyn Algorithm> = match algorithms::select(&a.algorithm) {
        Ok(algs) => algs,
        Err(e) => {
            eprintln!("error: {}", super::for_program(&e.0));
            return exit::BAD_INPUT;
        }
    };
    let classes: Vec<FaultClass> = FaultClass::ALL
        .into_iter()
        .filter(|&c| c != FaultClass::Delays)
        .collect();
    let out_existed = a.out.exists();
    if let Err(e) = super::prepare_out_dir(&a.out) {
        eprintln!("error: --out: {e}");
        return exit::BAD_INPUT;
    }
    // A matrix refused after this leaves no empty --out behind (only one it created), as
    // `fuzz` leaves none (stop 72's probe).
    let refused = || {
        if !out_existed {
            let _ = std::fs::remove_dir(&a.out);
        }
        exit::BAD_INPUT
    };
    // A `.json` in --out may be a counterexample this matrix writes: the table written over
    // it lost the counterexample its own replay line names.
    if let Some(md) = a
        .markdown
        .as_deref()
        .filter(|md| crate::fuzz::in_dir_as_json(md, &a.out))
    {
        eprintln!(
            "error: --markdown {}: a .json file in --out {} may be one of the counterexamples \
             this matrix writes there (<alg>.<variant>.<class>.<property>.seed<N>[.shrunk].json); \
             name it .md, or write it elsewhere",
            md.display(),
            a.out.display()
        );
        return refused();
    }
    if let Some(Err(e)) = a.markdown.as_deref().map(crate::fuzz::probe_output) {
        eprintln!("error: --markdown: {e}");
        return refused();
    }
    if let Some(m) = &a.markdown {
        crate::fuzz::remove_stale_temporaries_of(m);
    }
    let stop = interrupt_flag();
    let started = std::time::Instant::now();
    let deadline = a.time.map(|t| started + t);
    // The tables' layout first, each cell a job of its own; then the cells run on `--jobs`
    // workers, in order, one seed at a time each (a cell that found its counterexample
    // shrinks it while the other workers go on with the next cells).
    let mut tables = Vec::new();
    let mut jobs: Vec<Cell> = Vec::new();
    for alg in algs {
        let info = alg.info();
        let Some(variant) = info
            .variants
            .iter()
            .find(|v| v.name == "correct")
            .or_else(|| info.variants.iter().find(|v| !v.buggy))
            .cloned()
        else {
            eprintln!("note: {} has no correct variant; skipped", info.name);
            continue;
        };
        let target = Target {
            algorithm: alg,
            variant: variant.clone(),
        };
        let mut tolerated = vec!["delays"];
        tolerated.extend(info.fault_model.tolerates.iter().map(|c| c.name()));
        let mut table = Table {
            algorithm: info.name,
            variant: variant.name,
            properties: info.properties.clone(),
            model: format!(
                "{} (tolerates: {})",
                info.fault_model.summary,
                tolerated.join(", ")
            ),
            rows: Vec::new(),
        };
        for &class in &classes {
            let in_model = info.fault_model.allows(class);
            for (p, &property) in info.properties.iter().enumerate() {
                jobs.push(Cell {
                    table: tables.len(),
                    row: table.rows.len(),
                    property_index: p,
                    property,
                    class,
                    in_model,
                    target: target.clone(),
                });
            }
            table.rows.push(Row {
                class,
                in_model,
                cells: vec![None; info.properties.len()],
            });
        }
        tables.push(table);
    }
    if jobs.is_empty() {
        // A matrix of no cell shows nothing held; it is no pass.
        eprintln!(
            "error: nothing to run: no selected algorithm has a correct variant to put in the \
             matrix (`{}`)",
            a.algorithm
        );
        return refused();
    }
    let bar = if a.quiet || !std::io::stderr().is_terminal() {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(jobs.len() as u64)
    };
    bar.set_style(
        ProgressStyle::with_template("matrix [{bar:30}] {pos}/{len} cells  {msg}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    let pool = CellPool {
        args: a,
        jobs: &jobs,
        next: AtomicUsize::new(0),
        done: Mutex::new((0..jobs.len()).map(|_| None).collect()),
        halt: AtomicBool::new(false),
        deadline,
        workers: a.jobs.clamp(1, jobs.len().max(1)),
        bar: &bar,
    };
    std::thread::scope(|s| {
        for _ in 0..pool.workers {
            s.spawn(|| pool.work(stop));
        }
    });
    let done = pool.done.into_inner().expect("no poisoning");
    let mut out_of_time = 0u64;
    let mut in_model_not_run: Vec<String> = Vec::new();
    let mut refused: Option<String> = None;
    let mut write_errors: Vec<String> = Vec::new();
    let mut runs = 0u64;
    for (cell, result) in jobs.iter().zip(done) {
        let Some(ran) = result else { continue };
        runs += ran.runs;
        // A cell that started with its share of the time already spent ran no seed either:
        // it is not run, as its cell says, whatever `started` says.
        let not_run = !ran.started || (ran.report.runs == 0 && ran.report.first.is_none());
        out_of_time += u64::from(not_run);
        if cell.in_model && not_run {
            in_model_not_run.push(format!(
                "{} / {} / {}",
                tables[cell.table].algorithm,
                cell.class.name(),
                cell.property
            ));
        }
        write_errors.extend(ran.report.write_errors.iter().cloned());
        // A class forced outside the model may make the generated scenarios ones the
        // algorithm cannot run at all (a delay spike longer than its resync period): the cell
        // says so. Inside the model such a refusal is bad input (the first cell's, in order:
        // every earlier cell had started, so had finished, when the workers stopped).
        if let Some((seed, msg)) = ran.report.bad_input.as_ref().filter(|_| cell.in_model) {
            refused.get_or_insert_with(|| {
                format!(
                    "{} / {} / {} seed {seed}: the engine refused the generated scenario: {msg}",
                    tables[cell.table].algorithm,
                    cell.class.name(),
                    cell.property
                )
            });
        }
        tables[cell.table].rows[cell.row].cells[cell.property_index] = Some(ran.report);
    }
    // An interruption leaves the last algorithms' cells unrun: their tables are left out, and
    // named in the Markdown's note.
    let left_out: Vec<&'static str> = tables
        .iter()
        .filter(|t| !t.rows.iter().any(|r| r.cells.iter().any(Option::is_some)))
        .map(|t| t.algorithm)
        .collect();
    tables.retain(|t| t.rows.iter().any(|r| r.cells.iter().any(Option::is_some)));
    bar.finish_and_clear();
    if let Some(msg) = refused {
        // Bad input, never a cell of the matrix: nothing is rendered from a partial matrix.
        eprintln!("error: {}", super::for_program(&msg.to_string()));
        return exit::BAD_INPUT;
    }
    let interrupted = stop.load(Ordering::Relaxed);
    // Inclusive, with the count: "seeds 0..1" of one seed read as two (stop 65's probe).
    let last_seed = a.seed_start.saturating_add(a.seeds.saturating_sub(1));
    let seeds = match a.seeds {
        1 => format!("seed {}", a.seed_start),
        n => format!("the {n} seeds {}..={last_seed}", a.seed_start),
    };
    let intro = format!(
        "Each cell: the property checked alone over {seeds} with only that fault class \
         switched on (delays always on)."
    );
    let mut doc = format!("# Fault-tolerance matrix\n\n{intro}\n\n");
    if interrupted {
        // The file outlives the terminal that said "partial".
        doc.push_str(&format!(
            "**Partial: interrupted ({}) before every cell ran.** Not run: {}.\n\n",
            crate::stop::cause(),
            if left_out.is_empty() {
                "cells marked not run below".to_string()
            } else {
                format!(
                    "{} (left out), and cells marked not run below",
                    left_out.join(", ")
                )
            }
        ));
    }
    let mut screen = format!(
        "# Fault-tolerance matrix\n\n{}\n",
        super::grid::wrap(&intro, 0)
    );
    let (mut regressions, mut unjudged, mut limited) = (Vec::new(), Vec::new(), Vec::new());
    for t in &tables {
        doc.push_str(&render(t, a.seeds, false));
        doc.push('\n');
        screen.push_str(&render(t, a.seeds, true));
        screen.push('\n');
        for r in t.rows.iter().filter(|r| r.in_model) {
            for (p, c) in t.properties.iter().zip(&r.cells) {
                let Some(f) = c.as_ref().and_then(|c| c.first.as_ref()) else {
                    continue;
                };
                let cell = format!("{} / {} / {p}", t.algorithm, r.class.name());
                match Outcome::of(&f.label) {
                    Outcome::Breaks => regressions.push(cell),
                    Outcome::Unjudged => unjudged.push(cell),
                    Outcome::Limit => limited.push(cell),
                }
            }
        }
    }
    let (closing, code) = closing_lines(
        a,
        &tables,
        out_of_time,
        &Cells {
            regressions: &regressions,
            in_model_not_run: &in_model_not_run,
            limited: &limited,
            unjudged: &unjudged,
        },
    );
    if !interrupted {
        // (an interrupted matrix's file says so at its top, and has no verdict)
        doc.push_str(&format!(
            "```
{closing}```
"
        ));
    }
    print!("{screen}");
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{runs} runs in {secs:.2} s ({:.0} runs/s); peak RSS {}",
        runs as f64 / secs.max(1e-9),
        fuzz::format_kib(fuzz::peak_rss_kib())
    );
    if let Some(path) = &a.markdown {
        match fuzz::write_output(path, &doc) {
            Ok(()) => println!("Markdown written to {}", path.display()),
            Err(e) => {
                // Lost output is exit 2, interrupted or not (as a counterexample's is).
                eprintln!("error: cannot write {}: {e}", path.display());
                return exit::BAD_INPUT;
            }
        }
    }
    if !write_errors.is_empty() {
        for e in &write_errors {
            eprintln!("error: {}", super::for_program(&e.to_string()));
        }
        return exit::BAD_INPUT;
    }
    if interrupted {
        // As the Markdown's note says: the algorithms never reached have no table above.
        println!(
            "interrupted ({}): the matrix above is partial{}",
            crate::stop::cause(),
            if left_out.is_empty() {
                String::new()
            } else {
                format!("; not run at all: {}", left_out.join(", "))
            }
        );
        return fuzz::INTERRUPTED_EXIT;
    }
    print!("{closing}");
    code
}

/// The cells inside the declared fault models the closing lines name, by outcome.
struct Cells<'c> {
    regressions: &'c [String],
    in_model_not_run: &'c [String],
    limited: &'c [String],
    unjudged: &'c [String],
}

/// The matrix's closing lines (each wrapped to the tables' width) and its exit code: what a
/// time budget cut, then the cells inside the declared fault models that broke, never ran,
/// hit a run limit or could not be judged, or that every property held. Printed last, and
/// written at the end of the Markdown (a reviewer reading it saw every cell but not the
/// verdict, stop 72's probe).
fn closing_lines(
    a: &MatrixArgs,
    tables: &[Table],
    out_of_time: u64,
    cells: &Cells<'_>,
) -> (String, i32) {
    let mut s = String::new();
    let mut partial = false;
    if let Some(t) = a.time {
        let short = tables
            .iter()
            .flat_map(|t| &t.rows)
            .flat_map(|r| r.cells.iter().flatten())
            .filter(|c| c.first.is_none() && c.runs > 0 && c.runs < a.seeds)
            .count();
        if short > 0 || out_of_time > 0 {
            partial = true;
            s.push_str(&super::grid::wrap(
                &format!(
                    "--time {}: {short} cells cut short, {out_of_time} not run (give more time \
                     or fewer --seeds for the full matrix)",
                    humantime::format_duration(t)
                ),
                4,
            ));
        }
    }
    let broke = !cells.regressions.is_empty();
    let mut line = |text: String| s.push_str(&super::grid::wrap(&text, 4));
    let code = if !broke && !cells.in_model_not_run.is_empty() {
        // A cell inside a fault model that never ran is not shown to hold: as `fuzz`'s NOT
        // RUN target, it fails the matrix (a CI gate must not pass on cells it never ran).
        line(format!(
            "NOT RUN: {} cell(s) inside the declared fault models never ran (out of time), so \
             the matrix does not show they hold: {}",
            cells.in_model_not_run.len(),
            listed(cells.in_model_not_run)
        ));
        exit::VIOLATION
    } else if !broke && !cells.limited.is_empty() {
        line(format!(
            "RUN LIMIT: {} cell(s) inside the declared fault models hit a run limit, so they \
             show nothing held: {}",
            cells.limited.len(),
            listed(cells.limited)
        ));
        exit::LIMIT
    } else if !broke && !cells.unjudged.is_empty() {
        line(format!(
            "COULD NOT JUDGE: {} cell(s) inside the declared fault models had a run no checker \
             could judge, so they show nothing held: {}",
            cells.unjudged.len(),
            listed(cells.unjudged)
        ));
        exit::UNJUDGED
    } else if !broke {
        line(format!(
            "inside the declared fault models: every property held{}",
            if partial { " in the seeds run" } else { "" }
        ));
        exit::PASS
    } else {
        for r in cells.regressions {
            line(format!(
                "REGRESSION: {r} breaks inside the declared fault model"
            ));
        }
        exit::VIOLATION
    };
    (s, code)
}
