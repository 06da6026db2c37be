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
use std::sync::atomic::Ordering;

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
    /// Worker threads (one run per thread, each run single-threaded and deterministic).
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
    /// matrix still fails (exit 1) on a break inside a declared fault model.
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
    cells: Vec<TargetReport>,
}

/// The matrix of one algorithm.
struct Table {
    algorithm: &'static str,
    variant: &'static str,
    properties: Vec<&'static str>,
    model: String,
    rows: Vec<Row>,
}

fn cell_text(r: &TargetReport, seeds: u64) -> String {
    if let Some((seed, msg)) = &r.bad_input {
        // Only outside the model (inside, a refusal ends the matrix as bad input).
        return format!("cannot run: the algorithm refuses such scenarios (seed {seed}: {msg})");
    }
    match &r.first {
        None if r.runs >= seeds => format!("holds ({} seeds)", r.runs),
        None if r.runs == 0 => "not run (out of time)".to_string(),
        None => format!("holds ({} of {seeds} seeds, cut short)", r.runs),
        Some(f) => {
            let what = f.label.strip_prefix("violation:").unwrap_or(&f.label);
            let size = match (&f.shrunk, &f.size) {
                (Some(sh), _) => format!(
                    "shrunk to {} faults / {} inputs",
                    sh.size.faults, sh.size.inputs
                ),
                (None, Some(s)) => format!("{} faults / {} inputs", s.faults, s.inputs),
                (None, None) => "not written".into(),
            };
            format!("breaks: {what} (seed {}, {size})", f.seed)
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
            v.extend(r.cells.iter().map(|c| cell_text(c, seeds)));
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
            let Some(f) = &c.first else { continue };
            let file = f
                .shrunk
                .as_ref()
                .and_then(|sh| sh.path.as_ref())
                .or(f.path.as_ref());
            let _ = writeln!(
                examples,
                "- {}{} / {p}: seed {}, {}{}",
                r.class.name(),
                if r.in_model {
                    " (INSIDE the fault model: regression)"
                } else {
                    ""
                },
                f.seed,
                f.label,
                file.map_or(" (not written)".into(), |p| format!(
                    ": `{} replay {}`",
                    crate::program_name(),
                    p.display()
                )),
            );
        }
    }
    if !examples.is_empty() {
        s.push_str("\nCounterexamples (shrunk):\n\n");
        s.push_str(&examples);
    }
    s
}

/// Runs `sincro matrix`; returns the exit code.
pub fn main(a: &MatrixArgs) -> i32 {
    if a.seeds == 0 {
        eprintln!("error: --seeds must be at least 1");
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
        eprintln!("error: {e}");
        return exit::BAD_INPUT;
    }
    let algs: Vec<&'static dyn Algorithm> = match algorithms::select(&a.algorithm) {
        Ok(algs) => algs,
        Err(e) => {
            eprintln!("error: {}", e.0);
            return exit::BAD_INPUT;
        }
    };
    let classes: Vec<FaultClass> = FaultClass::ALL
        .into_iter()
        .filter(|&c| c != FaultClass::Delays)
        .collect();
    let cells: u64 = algs
        .iter()
        .map(|alg| (classes.len() * alg.info().properties.len()) as u64)
        .sum();
    let bar = if a.quiet || !std::io::stderr().is_terminal() {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(cells)
    };
    bar.set_style(
        ProgressStyle::with_template("matrix [{bar:30}] {pos}/{len} cells  {msg}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    if let Err(e) = super::prepare_out_dir(&a.out) {
        eprintln!("error: --out: {e}");
        return exit::BAD_INPUT;
    }
    let stop = interrupt_flag();
    let started = std::time::Instant::now();
    let deadline = a.time.map(|t| started + t);
    let mut cells_left = cells;
    let mut out_of_time = 0u64;
    let mut refused: Option<String> = None;
    let mut write_errors: Vec<String> = Vec::new();
    let mut tables = Vec::new();
    let mut runs = 0u64;
    'algs: for alg in algs {
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
            let mut row = Row {
                class,
                in_model: info.fault_model.allows(class),
                cells: Vec::new(),
            };
            for &property in &info.properties {
                bar.set_message(format!("{} / {} / {property}", info.name, class.name()));
                let cfg = FuzzConfig {
                    seed_start: a.seed_start,
                    seeds: a.seeds,
                    jobs: a.jobs.max(1),
                    keep_going: false,
                    check_determinism: false,
                    gen: GenOptions {
                        only: Some(class),
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
                    file_tag: Some(format!("{}.{property}", class.name())),
                    ..CampaignOptions::default()
                };
                let live = Live::default();
                let mut run = TargetRun::new(&target, &cfg, &opts);
                // This cell's share of the time left.
                let cell_deadline = deadline.map(|d| {
                    let now = std::time::Instant::now();
                    now + d.saturating_duration_since(now) / (cells_left.max(1) as u32)
                });
                cells_left = cells_left.saturating_sub(1);
                if cell_deadline.is_some_and(|d| d <= std::time::Instant::now()) {
                    out_of_time += 1; // reported as a cell not run
                } else {
                    run.run(stop, cell_deadline, &live, &|_| {});
                }
                runs += live.runs.load(Ordering::Relaxed);
                let report = run.report();
                write_errors.extend(report.write_errors.iter().cloned());
                // A class forced outside the model may make the generated scenarios ones the
                // algorithm cannot run at all (a delay spike longer than its resync period):
                // the cell says so. Inside the model such a refusal is bad input.
                if let Some((seed, msg)) = report.bad_input.as_ref().filter(|_| row.in_model) {
                    refused = Some(format!(
                        "{} / {} / {property} seed {seed}: the engine refused the generated \
                         scenario: {msg}",
                        info.name,
                        class.name()
                    ));
                    break 'algs;
                }
                row.cells.push(report);
                bar.inc(1);
                if stop.load(Ordering::Relaxed) {
                    table.rows.push(row);
                    tables.push(table);
                    break 'algs;
                }
            }
            table.rows.push(row);
        }
        tables.push(table);
    }
    bar.finish_and_clear();
    if let Some(msg) = refused {
        // Bad input, never a cell of the matrix: nothing is rendered from a partial matrix.
        eprintln!("error: {msg}");
        return exit::BAD_INPUT;
    }
    let interrupted = stop.load(Ordering::Relaxed);
    let intro = format!(
        "Each cell: the property checked alone over seeds {}..{} with only that fault class \
         switched on (delays always on).",
        a.seed_start,
        a.seed_start.saturating_add(a.seeds)
    );
    let mut doc = format!("# Fault-tolerance matrix\n\n{intro}\n\n");
    let mut screen = format!(
        "# Fault-tolerance matrix\n\n{}\n",
        super::grid::wrap(&intro, 0)
    );
    let mut regressions = Vec::new();
    for t in &tables {
        doc.push_str(&render(t, a.seeds, false));
        doc.push('\n');
        screen.push_str(&render(t, a.seeds, true));
        screen.push('\n');
        for r in t.rows.iter().filter(|r| r.in_model) {
            for (p, c) in t.properties.iter().zip(&r.cells) {
                if c.first.is_some() {
                    regressions.push(format!("{} / {} / {p}", t.algorithm, r.class.name()));
                }
            }
        }
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
                eprintln!("error: cannot write {}: {e}", path.display());
                if !interrupted {
                    return exit::BAD_INPUT;
                }
            }
        }
    }
    if !write_errors.is_empty() {
        for e in &write_errors {
            eprintln!("error: {e}");
        }
        return exit::BAD_INPUT;
    }
    if interrupted {
        println!("interrupted (Ctrl-C): the matrix above is partial");
        return fuzz::INTERRUPTED_EXIT;
    }
    let mut partial = false;
    if let Some(t) = a.time {
        let short = tables
            .iter()
            .flat_map(|t| &t.rows)
            .flat_map(|r| &r.cells)
            .filter(|c| c.first.is_none() && c.runs > 0 && c.runs < a.seeds)
            .count();
        if short > 0 || out_of_time > 0 {
            partial = true;
            println!(
                "--time {:.0}s: {short} cells cut short, {out_of_time} not run (give more time or fewer --seeds for the full matrix)",
                t.as_secs_f64()
            );
        }
    }
    if regressions.is_empty() {
        println!(
            "inside the declared fault models: every property held{}",
            if partial { " in the seeds run" } else { "" }
        );
        exit::PASS
    } else {
        for r in &regressions {
            println!("REGRESSION: {r} breaks inside the declared fault model");
        }
        exit::VIOLATION
    }
}
