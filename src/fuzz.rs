//! Fuzz campaigns: many generated scenarios per (algorithm, variant), failures shrunk and written
//! as replayable scenario files.
//!
//! Each run is single-threaded and deterministic; `jobs` threads take seeds from a shared
//! counter. The first failing seed reported is the smallest one whatever the number of jobs, so
//! a campaign's summary does not depend on thread timing (only a wall-clock budget or Ctrl-C
//! decides where a campaign stops).
//!
//! A campaign ([`campaign`]) runs several targets, optionally under a wall-clock budget shared
//! by the targets, on one shard (`k/n`) of the seed range. Every failure is written atomically
//! as soon as it is found (`<alg>.<variant>.seed<N>.json`), then shrunk and written again
//! (`….seed<N>.shrunk.json`).

use crate::algorithms::{Algorithm, VariantInfo};
use crate::guide::{CoverageReport, Guide, Observed};
use crate::harness::engine::{catch_algorithm_panic, RunOptions};
use crate::harness::gen::GenOptions;
use crate::harness::gen::Strategy;
use crate::harness::schedule::Schedule;
use crate::harness::shrink::{self, ScenarioSize, ShrinkOptions};
use crate::harness::{EngineKind, Expect, Scenario, Trace, Verdict};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
#[cfg(feature = "cli")]
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The internal label of a generated scenario the engine or the algorithm refused: reported
/// as bad input ([`TargetReport::bad_input`]), never as a verdict.
const BAD_SCENARIO: &str = "bad_scenario";

/// The label of a run a stop request ended before its end ([`Verdict::is_interrupted`]): not
/// counted, neither a failure nor a pass.
const STOPPED: &str = "stopped";

/// The failure of seed `seed` whose scenario could not be generated: the algorithm's own
/// code panicked while generating it (`message`). Refused as bad input, as a scenario the
/// engine refuses is: no run, no verdict.
fn generation_panicked(seed: u64, message: String) -> Box<(Scenario, Failure)> {
    // No scenario exists: a blank one stands in (a refused seed's scenario is never read).
    let blank: Scenario = serde_json::from_value(serde_json::json!({
        "algorithm": "", "nodes": 0, "seed": seed, "duration_ms": 0
    }))
    .expect("the blank scenario deserializes");
    Box::new((
        blank,
        Failure {
            seed,
            label: BAD_SCENARIO.into(),
            detail: format!(
                "generating its scenario panicked in the algorithm's own code (its workload, \
                 liveness bound or parameters, not a node's callback): {message}"
            ),
            path: None,
            size: None,
            shrunk: None,
            found_after_s: 0.0,
        },
    ))
}

/// `FuzzConfig::seeds` value for "no bound": run until the time budget ends or Ctrl-C.
pub const UNBOUNDED: u64 = u64::MAX;

/// Why the seeds `seed_start .. seed_start + seeds` do not exist, if they do not: the last
/// one would be past `u64::MAX` (a campaign would stop short of the seeds asked for, and
/// report fewer runs as if that were all). [`UNBOUNDED`] asks for no number of seeds, so it is
/// never refused; `seeds` 0 is checked by each front end.
pub fn seed_range_error(seed_start: u64, seeds: u64) -> Option<String> {
    if seeds == UNBOUNDED || seeds == 0 || seed_start.checked_add(seeds - 1).is_some() {
        return None;
    }
    let room = u64::MAX - seed_start + 1; // seed_start > 0 here, so this does not overflow
    Some(format!(
        "{seeds} seeds from seed {seed_start} run past the last seed, {}: at most {room} \
         start there",
        u64::MAX
    ))
}

/// Whether a campaign writes (and shrinks) the failure it found at its `n`-th failing run:
/// not when a smaller failing seed supersedes it (without `keep_going`); otherwise when it is
/// the smallest failing seed so far (the summary reports that one, with its file and replay
/// line, even when the workers found others first) or within `max_files`.
fn writes_failure(superseded: bool, n: u64, smallest: bool, cfg: &FuzzConfig) -> bool {
    let within_cap = usize::try_from(n).is_ok_and(|n| n <= cfg.max_files) || !cfg.keep_going;
    !superseded && (within_cap || smallest)
}

/// Exit code of `fuzz` and `matrix` after Ctrl-C (128 + SIGINT, as shells report it).
pub const INTERRUPTED_EXIT: i32 = crate::exit::INTERRUPTED;

/// What to fuzz and how.
#[derive(Clone, Debug)]
pub struct FuzzConfig {
    /// First seed.
    pub seed_start: u64,
    /// Number of seeds per target ([`UNBOUNDED`]: until the budget ends or Ctrl-C).
    pub seeds: u64,
    /// Worker threads (each run stays single-threaded).
    pub jobs: usize,
    /// Keep running after the first failure of a target (count them all).
    pub keep_going: bool,
    /// Run each seed twice and compare the traces byte for byte.
    pub check_determinism: bool,
    /// Scenario generation knobs.
    pub gen: GenOptions,
    /// Where failing scenarios are written.
    pub out_dir: PathBuf,
    /// At most this many failure files per target, besides the smallest failing seed's
    /// (always written: the summary reports it).
    pub max_files: usize,
    /// Coverage guidance (see [`crate::guide`]): runs are traced, the scenarios that reach
    /// something new kept, and a quarter of the later seeds mutate one of them; the report
    /// lists the algorithm's goals reached and never reached. Off with the `random` strategy
    /// (which generates exactly Sincro's first scenarios).
    pub coverage: bool,
}

impl Default for FuzzConfig {
    /// What `sincro fuzz` does without options: seeds `0..1000`, one job, stop a target at its
    /// first failure, no determinism check, the generator's defaults with each seed's active
    /// phase from the swarm (`GenOptions::phase_swarm`, on in `sincro fuzz` and `sincro
    /// calibrate` unless `--fixed-phase`: a library calibration on `GenOptions::default()`
    /// measured other rates than the command line's, stop 65's probe), failures written to
    /// `failures/` (at most 20 files per target with `keep_going`), coverage guidance on.
    fn default() -> Self {
        FuzzConfig {
            seed_start: 0,
            seeds: 1000,
            jobs: 1,
            keep_going: false,
            check_determinism: false,
            gen: GenOptions {
                phase_swarm: true,
                ..GenOptions::default()
            },
            out_dir: PathBuf::from("failures"),
            max_files: 20,
            coverage: true,
        }
    }
}

/// The most worker threads a campaign takes (`--jobs`, `SINCRO_JOBS`, `Check::jobs`).
pub const MAX_JOBS: usize = 256;

impl FuzzConfig {
    /// Why a campaign with these settings cannot run, naming the field and its range, or
    /// `None`: the generator's options ([`GenOptions::error`]), at most [`MAX_JOBS`] workers
    /// (0 means 1), at least one seed, a seed range that ends by `u64::MAX`. The command line
    /// and [`crate::testing::check`] check the same with their own names first;
    /// [`TargetRun::run`] checks it again, so a library campaign is refused, not run.
    pub fn error(&self) -> Option<String> {
        if let Some(e) = self.gen.error() {
            return Some(e);
        }
        if self.jobs > MAX_JOBS {
            return Some(format!(
                "jobs = {} is above the limit of {MAX_JOBS}",
                self.jobs
            ));
        }
        if self.seeds == 0 {
            return Some("seeds = 0: need at least 1 seed".into());
        }
        seed_range_error(self.seed_start, self.seeds)
    }
}

/// Campaign knobs beyond [`FuzzConfig`]. The default is one shard, no shrinking, every
/// declared property, plain file names.
#[derive(Clone, Debug, Default)]
pub struct CampaignOptions {
    /// Which part of the seed range this process runs.
    pub shard: Shard,
    /// Shrink each written failure with these options (`None`: do not shrink).
    pub shrink: Option<ShrinkOptions>,
    /// Check only these properties (`checks.properties` of every generated scenario).
    pub properties: Option<Vec<String>>,
    /// Inserted in failure file names: `<alg>.<variant>.<tag>.seed<N>.json`.
    pub file_tag: Option<String>,
    /// At most this long shrinking one failure (`None`: bounded only by the shrink's run
    /// count and the campaign's deadline); the smallest scenario verified by then is written.
    pub shrink_time: Option<Duration>,
    /// The run limits of every generated scenario (`None`: the defaults); written in each
    /// failure file, so its replay stops where the campaign's run did.
    pub limits: Option<crate::harness::Limits>,
}

/// One shard `k/n` of a seed range: the seeds `s` with `(s - seed_start) % n == k - 1`, so `n`
/// shards cover the range exactly once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This shard, 1-based.
    pub k: u64,
    /// Number of shards.
    pub n: u64,
}

impl Default for Shard {
    fn default() -> Self {
        Shard { k: 1, n: 1 }
    }
}

impl Shard {
    /// How many of the offsets `0..seeds` belong to this shard ([`UNBOUNDED`] stays unbounded).
    pub fn count(&self, seeds: u64) -> u64 {
        if seeds == UNBOUNDED {
            UNBOUNDED
        } else if seeds < self.k {
            0
        } else {
            (seeds - self.k) / self.n + 1
        }
    }

    /// The offset from `seed_start` of this shard's `j`-th seed (`None` on overflow).
    pub fn offset(&self, j: u64) -> Option<u64> {
        j.checked_mul(self.n)?.checked_add(self.k - 1)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("`{s}` is not a shard: expected k/n with 1 <= k <= n, e.g. 2/4");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let k: u64 = k.trim().parse().map_err(|_| bad())?;
        let n: u64 = n.trim().parse().map_err(|_| bad())?;
        if n == 0 {
            return Err(format!(
                "shard {k}/0 does not exist: n, the number of shards, must be at least 1"
            ));
        }
        if k == 0 || k > n {
            return Err(format!(
                "shard {k}/{n} does not exist: k is 1-based and must be within 1..={n}"
            ));
        }
        Ok(Shard { k, n })
    }
}

/// Parses a duration such as `60s`, `5m`, `1h`, `1h30m`, `1h 30m`, `500ms`, `1.5s` or `90`
/// (a bare number is seconds), with `humantime`'s units (`ms`, `s`/`sec`, `m`/`min`,
/// `h`/`hr`/`hour`, `d`...). It must be positive and under 10⁹ s; an error names the value.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let bad = |why: &str| format!("`{s}` is not a duration ({why}); e.g. 60s, 5m, 1h30m, 500ms");
    let t = s.trim();
    if t.is_empty() {
        return Err(bad("empty"));
    }
    // `humantime` wants a unit after every number: a bare number is seconds.
    let bare = t.bytes().all(|b| b.is_ascii_digit() || b == b'.');
    let d = if bare {
        humantime::parse_duration(&format!("{t}s"))
    } else {
        humantime::parse_duration(t)
    }
    .map_err(|e| bad(&e.to_string()))?;
    if d.is_zero() {
        return Err(bad("must be positive"));
    }
    if d.as_secs() >= 1_000_000_000 {
        return Err(bad("must be under 10^9 s"));
    }
    Ok(d)
}

/// One (algorithm, variant) to fuzz.
#[derive(Clone)]
pub struct Target {
    /// The algorithm.
    pub algorithm: &'static dyn Algorithm,
    /// The variant.
    pub variant: VariantInfo,
}

impl Target {
    /// `algorithm / variant`.
    pub fn name(&self) -> String {
        format!("{} / {}", self.algorithm.info().name, self.variant.name)
    }
}

/// A shrunk counterexample.
#[derive(Clone, Debug)]
pub struct ShrunkFile {
    /// Where it was written (if it was).
    pub path: Option<PathBuf>,
    /// Its size.
    pub size: ScenarioSize,
    /// Candidate runs the shrinker made.
    pub runs: usize,
    /// Accepted shrinking steps.
    pub steps: usize,
    /// Shrinking was cut short by Ctrl-C, by the campaign's time budget or by its run budget
    /// (`--shrink-runs`): the result still fails the same way, but need not be minimal.
    pub interrupted: bool,
    /// The failure did not come back when its scenario ran again, and why: nothing was shrunk
    /// or written (see [`ShrinkOutcome::irreproducible`]).
    pub irreproducible: Option<String>,
}

/// A failing seed.
#[derive(Clone, Debug)]
pub struct Failure {
    /// The seed.
    pub seed: u64,
    /// Verdict label (`violation:<property>`, `panic`, `limit_exceeded`, `nondeterministic`).
    pub label: String,
    /// The verdict, in one line.
    pub detail: String,
    /// Where the scenario was written (if it was).
    pub path: Option<PathBuf>,
    /// Size of the generated scenario.
    pub size: Option<ScenarioSize>,
    /// The shrunk counterexample (when shrinking is on and the failure was written).
    pub shrunk: Option<ShrunkFile>,
    /// Wall seconds of this target's fuzzing until this failure was found.
    pub found_after_s: f64,
}

impl Failure {
    /// Removes the files written for this failure (the scenario and its shrunk form): used when
    /// a smaller failing seed supersedes it in a campaign that stops at the first failure.
    /// Returns whether any file was removed.
    fn remove_files(&self) -> bool {
        let shrunk = self.shrunk.as_ref().and_then(|s| s.path.as_ref());
        let mut removed = false;
        for p in self.path.iter().chain(shrunk) {
            removed |= std::fs::remove_file(p).is_ok();
        }
        removed
    }
}

/// The result of fuzzing one target.
#[derive(Clone, Debug)]
pub struct TargetReport {
    /// Algorithm name.
    pub algorithm: String,
    /// Variant name.
    pub variant: String,
    /// Whether the variant is a known-buggy one (a failure is then expected).
    pub buggy: bool,
    /// Whether its bug is a deep one: expected only within
    /// [`DEEP_BUG_SEEDS`](crate::algorithms::DEEP_BUG_SEEDS) seeds.
    pub deep: bool,
    /// Seeds judged: every seed run, or (stopping at the first failure) the seeds of this shard
    /// up to and including the first failing one.
    pub runs: u64,
    /// Failing runs found (only the first unless `keep_going`).
    pub failures: u64,
    /// The smallest failing seed, with its files.
    pub first: Option<Failure>,
    /// Messages delivered over all runs.
    pub delivered: u64,
    /// Events processed over all runs.
    pub events: u64,
    /// Whether the outcome is as expected: no failure for a correct variant, a failure for a
    /// buggy one.
    pub as_expected: bool,
    /// Runs actually executed (for runs/s; at most `jobs - 1` more than `runs`).
    pub executed: u64,
    /// Wall seconds spent on this target.
    pub wall_s: f64,
    /// Seeds of this shard up to and including the first failing one.
    pub seeds_to_find: Option<u64>,
    /// Wall seconds of this target until its first failure was found.
    pub time_to_find_s: Option<f64>,
    /// Every seed of the range was judged (false when cut by the budget or Ctrl-C).
    pub complete: bool,
    /// The smallest seed whose two runs gave different traces (with `--check-determinism`),
    /// even when `first` is a smaller, expected failure of a buggy variant.
    pub nondeterministic: Option<Failure>,
    /// The engine or the algorithm refused a generated scenario (e.g. an engine missing from
    /// this build, a node count the algorithm rejects): bad input, never a verdict. The seed
    /// and the message; the target stopped there.
    pub bad_input: Option<(u64, String)>,
    /// Files that could not be written (the failure scenario or its shrunk form), each with
    /// the error: the campaign fails loudly on any.
    pub write_errors: Vec<String>,
    /// Failure files an earlier campaign left in the output directory that this one replaced
    /// with another failure (other contents under the same name): the summary says so (they
    /// were replaced silently, exit 0).
    pub replaced: Vec<PathBuf>,
    /// Failure files written (not counting shrunk forms): with `keep_going`, fewer than
    /// `failures` when `max_files` capped them.
    pub files_written: u64,
    /// Shrinks cut short by the time budget.
    pub shrinks_cut: u64,
    /// Failing seeds of a buggy variant not counted as catches: the correct variant fails the
    /// same scenario the same way ([`shared_by_correct`]).
    pub shared_with_correct: u64,
    /// What coverage guidance reached (`None` when it was off).
    pub coverage: Option<CoverageReport>,
    /// A property that no run of a target with no failure gave anything to judge: its name,
    /// the event kinds its checker reads, and the seeds looked at (see [`campaign`]). An
    /// empty name: the target judges no property at all.
    pub never_judged: Option<(String, Vec<String>, u64)>,
}

/// Live counters of a campaign, for a progress display polling from another thread.
#[derive(Debug, Default)]
pub struct Live {
    /// Runs done in the whole campaign.
    pub runs: AtomicU64,
    /// Failures of correct variants found in the whole campaign (unexpected inside the
    /// fault model).
    pub failures: AtomicU64,
    /// Failures of buggy variants found in the whole campaign: the expected catches.
    pub caught: AtomicU64,
    /// Runs done on the current target.
    pub target_runs: AtomicU64,
    /// The current target (`alg / variant`) and its seed count on this shard.
    pub current: Mutex<Option<(String, u64)>>,
    /// The seed each worker runs now, for the progress display to notice one whose run does
    /// not return ([`StallWatch`]).
    pub running: Running,
    notes: Mutex<Vec<String>>,
}

/// The seed each worker thread runs now (`seed + 1`; 0: none): one relaxed store as a run
/// starts and one as it ends.
#[derive(Debug)]
pub struct Running(Box<[AtomicU64]>);

impl Default for Running {
    fn default() -> Self {
        Running((0..MAX_JOBS).map(|_| AtomicU64::new(0)).collect())
    }
}

impl Running {
    fn set(&self, worker: usize, seed: Option<u64>) {
        if let Some(slot) = self.0.get(worker) {
            slot.store(seed.map_or(0, |s| s.saturating_add(1)), Ordering::Relaxed);
        }
    }

    /// What each worker runs now: `seed + 1`, or 0 between runs.
    pub fn snapshot(&self) -> Vec<u64> {
        self.0.iter().map(|s| s.load(Ordering::Relaxed)).collect()
    }
}

/// How long a run may go on before the progress display says so ([`StallWatch`]).
pub const LONG_RUN: Duration = Duration::from_secs(60);

/// Notices a worker whose run has not returned for [`LONG_RUN`]: a long run, or a callback
/// that never returns. No limit inside a run can stop a callback that loops without asking for
/// anything (`limits.max_ops_per_callback` stops one that asks), and a campaign waited on it
/// silently, its budget and Ctrl-C included; the display now names the seed, once.
#[derive(Debug)]
pub struct StallWatch {
    /// Per worker: what it ran when last looked at, since when, and whether it was named.
    seen: Vec<(u64, Instant, bool)>,
    /// How long a run goes on before it is named.
    after: Duration,
}

impl Default for StallWatch {
    fn default() -> Self {
        StallWatch::after(LONG_RUN)
    }
}

impl StallWatch {
    /// A watch that names a run once it has gone on for `after` ([`LONG_RUN`] by default).
    pub fn after(after: Duration) -> Self {
        StallWatch {
            seen: Vec::new(),
            after,
        }
    }

    /// Looks at `running` ([`Running::snapshot`]) at `now`: the seeds that have just been
    /// running for the watch's time or more (each named once per run).
    pub fn look(&mut self, running: &[u64], now: Instant) -> Vec<u64> {
        self.seen.resize(running.len(), (0, now, false));
        let mut long = Vec::new();
        for (seen, &r) in self.seen.iter_mut().zip(running) {
            if seen.0 != r {
                *seen = (r, now, false);
            } else if r != 0 && !seen.2 && now.duration_since(seen.1) >= self.after {
                seen.2 = true;
                long.push(r - 1);
            }
        }
        long
    }
}

/// Runs `f` (one run, outside a campaign) while a watcher thread calls `say` if it has not
/// returned after `after`: a single run's [`StallWatch`] (`run`, `replay`, a shrink's runs).
/// A callback that loops without asking for anything cannot be stopped inside a run, and the
/// command waited on it in silence.
pub fn noticed<T>(after: Duration, say: impl FnOnce() + Send, f: impl FnOnce() -> T) -> T {
    let (done, wait) = std::sync::mpsc::channel::<()>();
    std::thread::scope(|s| {
        s.spawn(move || {
            // `done` is dropped when `f` returns or unwinds
            if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(after) {
                say();
            }
        });
        let out = f();
        drop(done);
        out
    })
}

impl Live {
    /// Messages (failures found, files written) since the last call.
    pub fn take_notes(&self) -> Vec<String> {
        std::mem::take(&mut *self.notes.lock().expect("no poisoning"))
    }

    fn note(&self, s: String) {
        self.notes.lock().expect("no poisoning").push(s);
    }
}

/// [`std::fs::create_dir_all`], naming a file in the way as such: the OS says "File exists"
/// of `out/x` when `out` is a file, where the problem is that `out` is not a directory.
pub fn create_dir_all(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| {
        match dir
            .ancestors()
            .find(|a| !a.as_os_str().is_empty() && a.exists() && !a.is_dir())
        {
            Some(file) => std::io::Error::new(
                std::io::ErrorKind::NotADirectory,
                format!("{} is not a directory", file.display()),
            ),
            None => e,
        }
    })
}

/// Whether a file is at `path` with contents other than `text` (a file too large to be a
/// scenario counts as other; one that cannot be read, as none).
fn differs_from_file(path: &Path, text: &str) -> bool {
    match std::fs::metadata(path) {
        Ok(m) if m.len() > crate::harness::scenario::MAX_SCENARIO_BYTES => true,
        Ok(m) if m.is_file() => std::fs::read(path).is_ok_and(|old| old != text.as_bytes()),
        _ => false,
    }
}

/// Writes `text` to `path` atomically: a temporary file in the same directory, flushed to disk,
/// then renamed over `path`. A reader sees either nothing or the whole file.
pub fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    create_dir_all(&dir)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    let written = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()
    })();
    if let Err(e) = written.and_then(|()| std::fs::rename(&tmp, path)) {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    Ok(())
}

/// Writes a report (`--junit`, `--markdown`, `show --out`) to `path` without replacing what
/// is not a regular file: a symlink is written through (the link stays, its target gets the
/// text), a device or a FIFO (`/dev/stdout`, `/dev/null`) is written to directly. A regular
/// file, or a new one, is written atomically ([`write_atomically`]). Every error, flushing
/// included, is returned.
pub fn write_output(path: &Path, text: &str) -> std::io::Result<()> {
    // A FIFO: through the end [`probe_output`] held open, or opened now, never waiting for a
    // reader that is not there.
    let held = {
        let mut held = held_fifos();
        let i = held.iter().position(|(p, _)| p == path);
        i.map(|i| held.swap_remove(i).1)
    };
    if let Some(f) = held
        .map(Ok)
        .or_else(|| sincro_harness::scenario::open_fifo_for_writing(path))
    {
        let mut f = f?;
        f.write_all(text.as_bytes())?;
        return f.flush();
    }
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() || !m.file_type().is_file() => {
            let is_file = std::fs::metadata(path).is_ok_and(|m| m.is_file());
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(is_file)
                .open(path)?;
            f.write_all(text.as_bytes())?;
            f.flush()?;
            if is_file {
                f.sync_all()?;
            }
            Ok(())
        }
        _ => write_atomically(path, text),
    }
}

/// Whether writing `file` would write a `.json` file directly in `dir`, where a campaign or a
/// matrix writes its failure files (compared as canonical paths, through a symlink `file`
/// is, so `./out/x.json`, `out/x.json` and a link to either are one): a report written there
/// could replace a failure whose replay line was printed.
pub fn in_dir_as_json(file: &Path, dir: &Path) -> bool {
    // Where the bytes would go, whether or not the file and its folders exist yet (stop 72's
    // probe: `out/new/../x.json` and a link to a file not there yet passed the check, and
    // the report replaced a failure whose replay line was printed).
    let target = written_at(file);
    let is_json = target
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    is_json && target.parent() == Some(written_at(dir).as_path())
}

/// The absolute path writing `path` puts its bytes at: each symlink on the way followed,
/// one that leads nowhere too (the write creates its target), up to 40 of them as the kernel
/// does; `..` taken after the links before it, as the kernel takes it, and lexically in
/// folders that do not exist yet (they will be created).
fn written_at(path: &Path) -> PathBuf {
    use std::path::Component;
    let owned = |p: &Path| -> Vec<PathBuf> {
        p.components()
            .rev()
            .map(|c| PathBuf::from(c.as_os_str()))
            .collect()
    };
    let mut todo = owned(path);
    let mut out = if path.is_absolute() {
        PathBuf::new()
    } else {
        std::env::current_dir().unwrap_or_default()
    };
    let mut links = 0;
    while let Some(c) = todo.pop() {
        match c.components().next() {
            Some(Component::ParentDir) => {
                out.pop();
            }
            Some(Component::Normal(_)) => {
                out.push(&c);
                if links < 40 {
                    if let Ok(target) = std::fs::read_link(&out) {
                        links += 1;
                        out.pop();
                        // the target in the link's place (an absolute one replaces the path)
                        todo.extend(owned(&target));
                    }
                }
            }
            Some(Component::RootDir | Component::Prefix(_)) => out.push(&c),
            Some(Component::CurDir) | None => {}
        }
    }
    out
}

/// Checks, before a campaign runs, that the report [`write_output`] will write at its end
/// (`--junit`, `--markdown`) can be written: not a directory; a symlink or a device opens for
/// writing (untouched); otherwise its folder is created and takes a probe file. A campaign
/// of an hour must not end in "cannot write" with its report lost.
pub fn probe_output(path: &Path) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
    // A FIFO is opened now and held for the write: a reader is there, and stays connected
    // (a probe that closed its end ended the reader's input, and the write at the end then
    // waited for a reader forever).
    if let Some(f) = sincro_harness::scenario::open_fifo_for_writing(path) {
        held_fifos().push((path.to_path_buf(), f.map_err(fail)?));
        return Ok(());
    }
    // A symlink that leads nowhere: where it points is what is written (a new file there),
    // or, for a loop, nothing can be (found after the work, before).
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_symlink()) {
        if let Err(e) = std::fs::metadata(path) {
            if e.kind() != std::io::ErrorKind::NotFound {
                return Err(format!("cannot write {}: {e}", path.display()));
            }
            let target = std::fs::read_link(path).map_err(fail)?;
            let target = match path.parent() {
                Some(dir) if target.is_relative() => dir.join(target),
                _ => target,
            };
            // a chain of links ends (the kernel's loop limit said so above)
            return probe_output(&target).map_err(|e| {
                format!(
                    "{} (a symlink to {}): {e}",
                    path.display(),
                    target.display()
                )
            });
        }
    }
    // `report/` names a directory, whether or not it exists: found only at the end before.
    if path.to_string_lossy().ends_with(std::path::MAIN_SEPARATOR) {
        return Err(format!(
            "{} ends with a separator, so it names a directory: give the file to write",
            path.display()
        ));
    }
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Err(format!("{} is a directory", path.display())),
        Ok(m) if !m.is_file() || std::fs::symlink_metadata(path).is_ok_and(|l| l.is_symlink()) => {
            std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .map(drop)
                .map_err(fail)
        }
        found => {
            let dir = match path.parent() {
                Some(d) if !d.as_os_str().is_empty() => d,
                _ => Path::new("."),
            };
            probe_dir(dir).map_err(|e| format!("{}: {e}", path.display()))?;
            // An existing file that cannot be replaced (immutable, read-only) is found now,
            // not after the campaign: opened to append, nothing written.
            if found.is_ok() {
                std::fs::OpenOptions::new()
                    .append(true)
                    .open(path)
                    .map(drop)
                    .map_err(fail)?;
            }
            Ok(())
        }
    }
}

/// The FIFOs [`probe_output`] opened, held for [`write_output`] (a process writes each of its
/// reports once).
fn held_fifos() -> std::sync::MutexGuard<'static, Vec<(PathBuf, std::fs::File)>> {
    static HELD: std::sync::Mutex<Vec<(PathBuf, std::fs::File)>> =
        std::sync::Mutex::new(Vec::new());
    HELD.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Checks, before a campaign runs, that failure files can be written to `dir`: creates it and
/// writes (then removes) a probe file. The error says why not.
pub fn probe_dir(dir: &Path) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("cannot write to {}: {e}", dir.display());
    // a file (or device) there is named as such, not as the OS's "File exists"
    if dir.exists() && !dir.is_dir() {
        return Err(format!(
            "{} is not a directory (the output is written into it)",
            dir.display()
        ));
    }
    create_dir_all(dir).map_err(fail)?;
    if !dir.is_dir() {
        return Err(format!("{} is not a directory", dir.display()));
    }
    let probe = dir.join(format!(".sincro-probe{}", std::process::id()));
    let written = std::fs::File::create(&probe).and_then(|mut f| {
        f.write_all(b"probe")?;
        f.sync_all()
    });
    let _ = std::fs::remove_file(&probe);
    written.map_err(fail)
}

/// Removes the temporary files (`.<name>.tmp<pid>`) that [`write_atomically`] left in `dir`
/// when a campaign was killed before its rename: those of processes that no longer run (on
/// Linux, by `/proc/<pid>`; elsewhere, those older than one hour). Returns how many were
/// removed. `sincro fuzz` and `sincro matrix` call it on their output directory at start.
pub fn remove_stale_temporaries(dir: &Path) -> usize {
    remove_stale(dir, None)
}

/// [`remove_stale_temporaries`] for one output file (`--junit`, `--markdown`): only its own
/// temporary files (`.<its name>.tmp<pid>`), beside it. The README said a campaign removes
/// them; only those in `--out` were (stop 64's probe).
pub fn remove_stale_temporaries_of(file: &Path) -> usize {
    let (Some(dir), Some(name)) = (file.parent(), file.file_name().and_then(|n| n.to_str())) else {
        return 0;
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    remove_stale(dir, Some(name))
}

/// The stale temporary files in `dir`, of the file named `only` if given, removed.
fn remove_stale(dir: &Path, only: Option<&str>) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let proc_fs = Path::new("/proc/self").exists();
    let mut removed = 0;
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(pid) = name
            .strip_prefix('.')
            .and_then(|n| n.rsplit_once(".tmp"))
            .filter(|(base, _)| only.is_none_or(|o| o == *base))
            .map(|(_, pid)| pid)
            .filter(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        let stale = if proc_fs {
            pid != std::process::id().to_string() && !Path::new("/proc").join(pid).exists()
        } else {
            e.metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age > Duration::from_secs(3600))
        };
        if stale && std::fs::remove_file(e.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// The process's peak resident set size in KiB (`VmHWM` of /proc/self/status), if known.
pub fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.trim_start_matches("VmHWM:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

/// `12.3 MiB`, or `n/a`.
pub fn format_kib(kib: Option<u64>) -> String {
    kib.map_or("n/a".into(), |k| format!("{:.1} MiB", k as f64 / 1024.0))
}

/// `4f/7i/5n`: faults, inputs, nodes; and `/3p`, entries of the params' lists (Ω's
/// `churn`), when there are any.
pub fn format_size(s: &ScenarioSize) -> String {
    let params = if s.params_entries > 0 {
        format!("/{}p", s.params_entries)
    } else {
        String::new()
    };
    format!("{}f/{}i/{}n{params}", s.faults, s.inputs, s.nodes)
}

fn expect_of(label: &str) -> Option<Expect> {
    match label.split_once(':') {
        Some(("violation", p)) => Some(Expect::Violation(p.to_string())),
        Some(("unjudged", p)) => Some(Expect::Unjudged(p.to_string())),
        _ if label == "panic" => Some(Expect::Panic),
        _ => None,
    }
}

const QUICK: RunOptions = RunOptions::new(false);

const TRACED: RunOptions = RunOptions::new(true);

/// A trace with messages, timers and inputs as their type words: what a violation's
/// [`failure_signature`] reads, without rendering everything in full.
const SIGNATURE: RunOptions = RunOptions::new(true).type_words_only();

/// Fuzzing state of one target; [`TargetRun::run`] can be called several times (time slices),
/// each call going on from the next seed.
pub struct TargetRun<'a> {
    target: &'a Target,
    cfg: &'a FuzzConfig,
    opts: &'a CampaignOptions,
    limit: u64,
    next: AtomicU64,
    best: AtomicU64,
    failures: AtomicU64,
    executed: AtomicU64,
    events: AtomicU64,
    delivered: AtomicU64,
    /// The smallest failing seed so far, and the earliest time a failure was found (only
    /// these are kept, so memory stays flat however many seeds fail).
    found: Mutex<(Option<Failure>, Option<f64>)>,
    /// The smallest nondeterministic seed, kept apart from `found`: with `keep_going`, an
    /// expected violation of a buggy variant at a smaller seed must not hide it.
    nondeterministic: Mutex<Option<Failure>>,
    /// The smallest seed whose scenario was refused, and why (see [`TargetReport::bad_input`]).
    bad_input: Mutex<Option<(u64, String)>>,
    write_errors: Mutex<Vec<String>>,
    /// See [`TargetReport::replaced`].
    replaced: Mutex<Vec<PathBuf>>,
    files_written: AtomicU64,
    /// With `keep_going`: the smallest failing seeds' positions so far, at most `max_files`
    /// (at least 1) of them, so memory stays flat; a failure is written while it is among
    /// them.
    smallest_failing: Mutex<BTreeSet<u64>>,
    /// With `keep_going`: the failures written, by position, so that those a smaller
    /// failing seed found later pushed out of `smallest_failing` are removed when the run
    /// ends: the files do not depend on how the workers were scheduled (at `-j 2` a
    /// `--max-files 1` campaign wrote 2 files half of the time).
    written: Mutex<BTreeMap<u64, Failure>>,
    shrinks_cut: AtomicU64,
    shared_with_correct: AtomicU64,
    /// The campaign's hard deadline: shrinking stops there too.
    hard_deadline: Option<Instant>,
    wall: Duration,
    /// Coverage guidance, when on ([`FuzzConfig::coverage`]).
    guide: Option<Guide>,
}

impl<'a> TargetRun<'a> {
    /// A fresh state for `target`.
    pub fn new(target: &'a Target, cfg: &'a FuzzConfig, opts: &'a CampaignOptions) -> Self {
        TargetRun {
            target,
            cfg,
            opts,
            limit: opts.shard.count(cfg.seeds),
            next: AtomicU64::new(0),
            best: AtomicU64::new(u64::MAX),
            failures: AtomicU64::new(0),
            executed: AtomicU64::new(0),
            events: AtomicU64::new(0),
            delivered: AtomicU64::new(0),
            found: Mutex::new((None, None)),
            nondeterministic: Mutex::new(None),
            bad_input: Mutex::new(None),
            write_errors: Mutex::new(Vec::new()),
            replaced: Mutex::new(Vec::new()),
            files_written: AtomicU64::new(0),
            smallest_failing: Mutex::new(BTreeSet::new()),
            written: Mutex::new(BTreeMap::new()),
            shrinks_cut: AtomicU64::new(0),
            shared_with_correct: AtomicU64::new(0),
            hard_deadline: None,
            wall: Duration::ZERO,
            guide: (cfg.coverage && cfg.gen.strategy != Strategy::Random).then(|| {
                let alg = target.algorithm;
                let model = crate::algorithms::coverage::generation_model(alg, target.variant.name);
                let goals = alg.goals().into_iter();
                Guide::new(
                    goals
                        .filter(|g| cfg.gen.beyond_model || g.possible_under(&model))
                        .collect(),
                )
            }),
        }
    }

    /// Shrinking (and new runs) also stop at `deadline`: the campaign's time budget is a hard
    /// cap, not only a cap on starting seeds.
    pub fn with_deadline(mut self, deadline: Option<Instant>) -> Self {
        self.hard_deadline = deadline;
        self
    }

    /// A scenario was refused, or a failure file could not be written: the campaign stops
    /// (it ran on, logging failures it could not keep, and its reports called it as
    /// expected).
    fn refused(&self) -> bool {
        self.bad_input.lock().expect("no poisoning").is_some()
            || !self.write_errors.lock().expect("no poisoning").is_empty()
    }

    fn write_error(&self, live: &Live, what: String) {
        live.note(what.clone());
        self.write_errors.lock().expect("no poisoning").push(what);
    }

    /// Seeds of this shard for this target ([`UNBOUNDED`] when unbounded).
    pub fn seeds_in_shard(&self) -> u64 {
        self.limit
    }

    /// True while seeds are left and the target has not stopped at a failure.
    pub fn is_open(&self) -> bool {
        let next = self.next.load(Ordering::Relaxed);
        next < self.limit
            && self.seed_of(next).is_some()
            && (self.cfg.keep_going || self.best.load(Ordering::Relaxed) == u64::MAX)
            && !self.refused()
    }

    fn seed_of(&self, j: u64) -> Option<u64> {
        self.opts
            .shard
            .offset(j)
            .and_then(|o| self.cfg.seed_start.checked_add(o))
    }

    fn file_path(&self, seed: u64, shrunk: bool) -> PathBuf {
        let tag = self
            .opts
            .file_tag
            .as_ref()
            .map_or(String::new(), |t| format!(".{t}"));
        self.cfg.out_dir.join(format!(
            "{}.{}{tag}.seed{seed}{}.json",
            self.target.algorithm.info().name,
            self.target.variant.name,
            if shrunk { ".shrunk" } else { "" }
        ))
    }

    /// Generates (or, guided, draws) and runs the seed of index `j`; `Err` on a failing
    /// verdict or a determinism mismatch.
    fn run_seed(
        &self,
        j: u64,
        seed: u64,
        give_up: &dyn Fn() -> bool,
    ) -> Result<(u64, u64), Box<(Scenario, Failure)>> {
        let t = self.target;
        let Some(guide) = &self.guide else {
            let sc =
                catch_algorithm_panic(|| t.algorithm.generate(t.variant.name, seed, &self.cfg.gen))
                    .map_err(|e| generation_panicked(seed, e))?;
            return self.run_scenario(seed, sc, None);
        };
        let generated = catch_algorithm_panic(|| {
            let drawn = guide.draw(t.algorithm, t.variant.name, j, seed, &self.cfg.gen, give_up);
            let gen = self.cfg.gen.for_draft(&drawn.draft);
            let sc = t.algorithm.complete(drawn.draft.clone(), &gen);
            (drawn, sc)
        });
        let (drawn, sc) = match generated {
            Ok(g) => g,
            Err(e) => {
                guide.record(j, None);
                return Err(generation_panicked(seed, e));
            }
        };
        let mut measured = None;
        let result = self.run_scenario(
            seed,
            sc,
            Some(&mut |trace: &Trace| measured = Some(guide.measure(trace))),
        );
        let observed = measured.map(|(features, goals)| Observed {
            seed,
            draft: drawn.draft,
            features,
            goals,
            mutated: drawn.mutated,
        });
        guide.record(j, observed);
        result
    }

    /// Runs `sc`, the scenario of `seed`; `on_trace` (when given, the run is traced) sees the
    /// trace of a run that completes.
    fn run_scenario(
        &self,
        seed: u64,
        mut sc: Scenario,
        on_trace: Option<&mut dyn FnMut(&Trace)>,
    ) -> Result<(u64, u64), Box<(Scenario, Failure)>> {
        let t = self.target;
        if let Some(p) = &self.opts.properties {
            sc.checks.properties = Some(p.clone());
        }
        if let Some(l) = &self.opts.limits {
            sc.limits = l.clone();
        }
        let fail = |mut sc: Scenario, label: String, detail: String| {
            // shrunk, verified and written as the file gives it back
            sc.forget_typed_inputs();
            Err(Box::new((
                sc,
                Failure {
                    seed,
                    label,
                    detail,
                    path: None,
                    size: None,
                    shrunk: None,
                    found_after_s: 0.0,
                },
            )))
        };
        // A guided run's trace is read for coverage (event kinds and type words) and goals:
        // type words suffice unless a goal reads more, or the trace is compared whole.
        let words_only = on_trace.is_some()
            && !self.cfg.check_determinism
            && !self.guide.as_ref().is_some_and(Guide::reads_text);
        let opts = RunOptions::new(self.cfg.check_determinism || on_trace.is_some());
        let opts = if words_only {
            opts.type_words_only()
        } else {
            opts
        };
        let out = match t.algorithm.run(&sc, opts) {
            Ok(o) => o,
            Err(e) => return fail(sc, BAD_SCENARIO.into(), e.0),
        };
        if out.verdict.is_interrupted() {
            // (before `on_trace`: a cut trace would give the guide coverage no run had)
            return fail(sc, STOPPED.into(), out.verdict.to_string());
        }
        if let (Some(f), Some(trace)) = (on_trace, &out.trace) {
            f(trace);
        }
        if self.cfg.check_determinism {
            let again = t.algorithm.run(&sc, opts).expect("ran once already");
            if again.verdict.is_interrupted() {
                // (its trace stops where the stop came: no difference to report)
                return fail(sc, STOPPED.into(), again.verdict.to_string());
            }
            let diff = match (&out.trace, &again.trace) {
                (Some(a), Some(b)) => a.first_difference(b),
                _ => None,
            };
            drop(again);
            if let Some(d) = diff {
                return fail(
                    sc,
                    "nondeterministic".into(),
                    format!("the same scenario gave two different traces; {d}"),
                );
            }
        }
        match &out.verdict {
            Verdict::Pass => Ok((out.stats.events, out.stats.delivered)),
            v @ Verdict::Violation(_) if shared_by_correct(t.algorithm, &sc, &v.label()) => {
                // No catch of the bug: the scenario breaks the correct variant too.
                self.shared_with_correct.fetch_add(1, Ordering::Relaxed);
                Ok((out.stats.events, out.stats.delivered))
            }
            v => fail(sc, v.label(), v.to_string()),
        }
    }

    /// Shrinks the written failure of campaign seed `seed` and writes the result next to it,
    /// under that seed's name: a scenario coverage guidance mutated carries the seed of the
    /// scenario it came from, and naming the shrunk file after that one overwrote another
    /// failure's.
    fn shrink_failure(
        &self,
        seed: u64,
        sc: &Scenario,
        label: &str,
        stop: &AtomicBool,
        opts: &ShrinkOptions,
        live: &Live,
    ) -> ShrunkFile {
        let mut cut = false;
        let own_deadline = self.opts.shrink_time.map(|t| Instant::now() + t);
        let mut give_up = || {
            let now = Instant::now();
            if self.hard_deadline.is_some_and(|d| now >= d)
                || own_deadline.is_some_and(|d| now >= d)
            {
                cut = true;
            }
            cut || stop.load(Ordering::Relaxed)
        };
        let deadline = match (self.hard_deadline, own_deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let result = shrink_scenario(
            self.target.algorithm,
            sc,
            label,
            opts,
            &mut give_up,
            Some(stop),
            deadline,
        );
        // The search also stops at `deadline` by itself, without asking `give_up` (stop 65's
        // probe: "[81 candidate runs, 20 steps, cut short]" beside "0 shrink(s) cut short").
        let timed_out = result.interrupted && deadline.is_some_and(|d| Instant::now() >= d);
        if cut || timed_out {
            self.shrinks_cut.fetch_add(1, Ordering::Relaxed);
        }
        let path = self.file_path(seed, true);
        // A failure that did not come back has no shrunk form: the original says it all.
        let written = match &result.irreproducible {
            Some(_) => {
                // nor is an earlier campaign's shrunk file of this seed left beside it
                let _ = std::fs::remove_file(&path);
                None
            }
            None => match write_atomically(&path, &result.scenario.to_json()) {
                Ok(()) => Some(path),
                Err(e) => {
                    self.write_error(live, format!("cannot write {}: {e}", path.display()));
                    None
                }
            },
        };
        ShrunkFile {
            path: written,
            size: ScenarioSize::of(&result.scenario),
            runs: result.runs,
            steps: result.steps,
            interrupted: result.interrupted || result.budget_spent,
            irreproducible: result.irreproducible,
        }
    }

    /// Runs seeds until the range is done, the target stops at a failure, `deadline` passes or
    /// `stop` is set. Runs in flight finish, unless `stop` cuts them short (not counted:
    /// [`stoppable`](sincro_harness::engine::stoppable)); failures are written (and shrunk) as
    /// found.
    /// `progress` is called after each run with the number of failures so far.
    pub fn run(
        &mut self,
        stop: &AtomicBool,
        deadline: Option<Instant>,
        live: &Live,
        progress: &(dyn Fn(u64) + Sync),
    ) {
        if let Some(e) = self.cfg.error() {
            // Refused before any seed, as bad input: nothing is generated from settings that
            // would not fit in memory or would spawn thousands of threads.
            *self.bad_input.lock().expect("no poisoning") =
                Some((self.cfg.seed_start, format!("the campaign's settings: {e}")));
            return;
        }
        let started = Instant::now();
        let wall_before = self.wall;
        let this = &*self;
        std::thread::scope(|s| {
            for w in 0..this.cfg.jobs.max(1) {
                s.spawn(move || {
                    this.worker(w, stop, deadline, (started, wall_before), live, progress)
                });
            }
        });
        self.wall += started.elapsed();
        self.prune_files(live);
        if let (Some(g), false) = (&self.guide, self.is_open()) {
            g.close();
        }
    }

    /// With `keep_going`, once the workers stopped: removes the files of failures written
    /// while they were among the smallest failing seeds that a smaller one found later
    /// pushed out (later runs of this target take larger seeds only). A nondeterministic
    /// seed's file stays: it is a bug of the run itself.
    fn prune_files(&self, live: &Live) {
        if !self.cfg.keep_going {
            return;
        }
        let smallest = self.smallest_failing.lock().expect("no poisoning");
        let mut written = self.written.lock().expect("no poisoning");
        written.retain(|j, f| {
            if smallest.contains(j) || f.label == "nondeterministic" {
                return true;
            }
            if f.remove_files() {
                self.files_written.fetch_sub(1, Ordering::Relaxed);
                live.note(format!(
                    "{} seed {}: removed its files, {} smaller failing seeds were found \
                     (--max-files {})",
                    self.target.name(),
                    f.seed,
                    smallest.len(),
                    self.cfg.max_files
                ));
            }
            false
        });
    }

    fn worker(
        &self,
        w: usize,
        stop: &AtomicBool,
        deadline: Option<Instant>,
        // when this run of the target started, and its wall time before it
        (started, wall_before): (Instant, Duration),
        live: &Live,
        progress: &(dyn Fn(u64) + Sync),
    ) {
        loop {
            let now = Instant::now();
            if stop.load(Ordering::Relaxed)
                || deadline.is_some_and(|d| now >= d)
                || self.hard_deadline.is_some_and(|d| now >= d)
                || self.refused()
            {
                return;
            }
            let j = self.next.fetch_add(1, Ordering::Relaxed);
            if j >= self.limit || (!self.cfg.keep_going && j >= self.best.load(Ordering::Relaxed)) {
                return;
            }
            let Some(seed) = self.seed_of(j) else {
                if let Some(g) = &self.guide {
                    g.record(j, None);
                }
                return;
            };
            self.executed.fetch_add(1, Ordering::Relaxed);
            let give_up = || {
                stop.load(Ordering::Relaxed)
                    || deadline.is_some_and(|d| Instant::now() >= d)
                    || (!self.cfg.keep_going && self.best.load(Ordering::Relaxed) < j)
            };
            // A stop request or the time budget ends the run in flight too, not only the
            // campaign's next ones.
            live.running.set(w, Some(seed));
            let ran = sincro_harness::engine::stoppable_until(stop, self.hard_deadline, || {
                self.run_seed(j, seed, &give_up)
            });
            live.running.set(w, None);
            match ran {
                Err(failure) if failure.1.label == STOPPED => {
                    // Cut short: it tells nothing, so it is not counted as run.
                    self.executed.fetch_sub(1, Ordering::Relaxed);
                    return;
                }
                Ok((e, d)) => {
                    self.events.fetch_add(e, Ordering::Relaxed);
                    self.delivered.fetch_add(d, Ordering::Relaxed);
                }
                Err(failure) if failure.1.label == BAD_SCENARIO => {
                    // Refused before it ran: no seed judged, no run (it was counted as both,
                    // stop 72's probe).
                    self.executed.fetch_sub(1, Ordering::Relaxed);
                    let f = failure.1;
                    let mut bad = self.bad_input.lock().expect("no poisoning");
                    if bad.as_ref().is_none_or(|(s, _)| f.seed < *s) {
                        *bad = Some((f.seed, f.detail));
                    }
                }
                Err(failure) => {
                    let (mut sc, mut f) = *failure;
                    let earlier = self.best.fetch_min(j, Ordering::Relaxed);
                    // With a smaller failing seed already known, this one will not be
                    // reported, so it is neither written nor shrunk: the files in the output
                    // directory do not depend on how the workers were scheduled.
                    // A nondeterministic seed is always written: it is a bug of the run itself.
                    let superseded =
                        !self.cfg.keep_going && earlier < j && f.label != "nondeterministic";
                    f.found_after_s = (wall_before + started.elapsed()).as_secs_f64();
                    self.failures.fetch_add(1, Ordering::Relaxed);
                    let buggy = self.target.variant.buggy;
                    if buggy { &live.caught } else { &live.failures }
                        .fetch_add(1, Ordering::Relaxed);
                    // Its rank among the failing seeds so far, by seed, not by completion.
                    let rank = {
                        let mut smallest = self.smallest_failing.lock().expect("no poisoning");
                        smallest.insert(j);
                        if smallest.len() > self.cfg.max_files.max(1) {
                            smallest.pop_last();
                        }
                        if smallest.contains(&j) {
                            smallest.range(..j).count() as u64
                        } else {
                            u64::MAX - 1
                        }
                    };
                    if writes_failure(superseded, rank + 1, j < earlier, self.cfg) {
                        sc.expect = expect_of(&f.label);
                        f.size = Some(ScenarioSize::of(&sc));
                        let path = self.file_path(seed, false);
                        let json = sc.to_json();
                        let other = differs_from_file(&path, &json);
                        match write_atomically(&path, &json) {
                            Ok(()) => {
                                if other {
                                    live.note(format!(
                                        "{} seed {seed}: replaced {}, which held another \
                                         failure (an earlier campaign's)",
                                        self.target.name(),
                                        path.display()
                                    ));
                                    self.replaced
                                        .lock()
                                        .expect("no poisoning")
                                        .push(path.clone());
                                }
                                self.files_written.fetch_add(1, Ordering::Relaxed);
                                live.note(format!(
                                    "{} {} seed {seed}: {} -> {}",
                                    if buggy { "caught:" } else { "FAILURE:" },
                                    self.target.name(),
                                    f.label,
                                    path.display()
                                ));
                                f.path = Some(path);
                            }
                            Err(e) => self.write_error(
                                live,
                                format!(
                                    "{} seed {seed}: {}; cannot write {}: {e}",
                                    self.target.name(),
                                    f.label,
                                    path.display()
                                ),
                            ),
                        }
                        if let (Some(opts), Ok(())) = (&self.opts.shrink, shrinkable(&f.label)) {
                            f.shrunk =
                                Some(self.shrink_failure(seed, &sc, &f.label, stop, opts, live));
                        } else if f.path.is_some() {
                            // A shrunk file of an earlier campaign into this directory would
                            // sit beside the new original as if it were its shrunk form.
                            let stale = self.file_path(seed, true);
                            if std::fs::remove_file(&stale).is_ok() {
                                live.note(format!(
                                    "{} seed {seed}: removed {}, the shrunk form of an earlier \
                                     failure file this campaign replaced",
                                    self.target.name(),
                                    stale.display()
                                ));
                            }
                        }
                    }
                    if self.cfg.keep_going && f.path.is_some() {
                        self.written
                            .lock()
                            .expect("no poisoning")
                            .insert(j, f.clone());
                    }
                    if f.label == "nondeterministic" {
                        let mut nd = self.nondeterministic.lock().expect("no poisoning");
                        if nd.as_ref().is_none_or(|g| f.seed < g.seed) {
                            *nd = Some(f.clone());
                        }
                    }
                    let mut found = self.found.lock().expect("no poisoning");
                    found.1 = Some(found.1.map_or(f.found_after_s, |t| t.min(f.found_after_s)));
                    if found.0.as_ref().is_none_or(|g| f.seed < g.seed) {
                        let seed = f.seed;
                        if let Some(g) = found.0.replace(f) {
                            if !self.cfg.keep_going {
                                self.supersede(&g, seed, live);
                            }
                        }
                    } else if !self.cfg.keep_going {
                        // Found and written while a smaller failing seed was still running.
                        let seed = found.0.as_ref().map_or(0, |g| g.seed);
                        self.supersede(&f, seed, live);
                    }
                }
            }
            live.runs.fetch_add(1, Ordering::Relaxed);
            live.target_runs.fetch_add(1, Ordering::Relaxed);
            progress(self.failures.load(Ordering::Relaxed));
        }
    }

    /// Removes the files of failure `f`, superseded by the smaller failing seed `by`.
    fn supersede(&self, f: &Failure, by: u64, live: &Live) {
        if f.label != "nondeterministic" && f.remove_files() {
            live.note(format!(
                "{} seed {}: superseded by seed {by}; its files were removed",
                self.target.name(),
                f.seed
            ));
        }
    }

    /// The report so far.
    pub fn report(&self) -> TargetReport {
        // The smallest failing seed (shard order is seed order).
        let (first, time_to_find_s) = self.found.lock().expect("no poisoning").clone();
        let executed = self.executed.load(Ordering::Relaxed);
        let best = self.best.load(Ordering::Relaxed);
        let seeds_to_find = (best != u64::MAX).then(|| best + 1);
        let failures = if self.cfg.keep_going {
            self.failures.load(Ordering::Relaxed)
        } else {
            u64::from(first.is_some())
        };
        let runs = match seeds_to_find {
            Some(n) if !self.cfg.keep_going => n,
            _ => executed,
        };
        let next = self.next.load(Ordering::Relaxed);
        let nondeterministic = self.nondeterministic.lock().expect("no poisoning").clone();
        TargetReport {
            algorithm: self.target.algorithm.info().name.to_string(),
            variant: self.target.variant.name.to_string(),
            buggy: self.target.variant.buggy,
            deep: self.target.variant.deep,
            runs,
            failures,
            as_expected: (first.is_some() == self.target.variant.buggy
                || self.target.variant.deep && runs < crate::algorithms::DEEP_BUG_SEEDS)
                && nondeterministic.is_none(),
            first,
            delivered: self.delivered.load(Ordering::Relaxed),
            events: self.events.load(Ordering::Relaxed),
            executed,
            wall_s: self.wall.as_secs_f64(),
            seeds_to_find,
            time_to_find_s,
            // The range may also end at the last seed, u64::MAX, before any budget does.
            complete: (seeds_to_find.is_some() && !self.cfg.keep_going)
                || (self.limit != UNBOUNDED && next >= self.limit && runs >= self.limit)
                || self.seed_of(next).is_none(),
            nondeterministic,
            bad_input: self.bad_input.lock().expect("no poisoning").clone(),
            write_errors: self.write_errors.lock().expect("no poisoning").clone(),
            replaced: self.replaced.lock().expect("no poisoning").clone(),
            files_written: self.files_written.load(Ordering::Relaxed),
            shrinks_cut: self.shrinks_cut.load(Ordering::Relaxed),
            shared_with_correct: self.shared_with_correct.load(Ordering::Relaxed),
            coverage: self.guide.as_ref().map(Guide::report),
            never_judged: None,
        }
    }

    /// After a run with no failure: the first property that none of the first
    /// [`crate::testing::EVIDENCE_SAMPLE`] seeds' runs (generated, re-run traced) gave an event
    /// to judge, with the kinds its checker reads and how many seeds were looked at. A pass
    /// on nothing is none: a 1-node `deadlock.cmh` campaign "held" where `run` of each of
    /// its scenarios says COULD NOT JUDGE.
    fn never_judged(&self) -> Option<(String, Vec<String>, u64)> {
        let t = self.target;
        let executed = self.executed.load(Ordering::Relaxed);
        let seeds: Vec<u64> = (0..executed.min(crate::testing::EVIDENCE_SAMPLE))
            .filter_map(|j| self.seed_of(j))
            .collect();
        let mut open: Option<Vec<(String, &'static [&'static str])>> = None;
        for &seed in &seeds {
            let sc = t.algorithm.generate(t.variant.name, seed, &self.cfg.gen);
            let checkers = t.algorithm.checkers(&sc).ok()?;
            if checkers.is_empty() {
                // no property at all: every run passed on nothing (named by an empty name)
                return Some((String::new(), Vec::new(), 0));
            }
            let want = open.get_or_insert_with(|| evidence_wanted(&checkers));
            if want.is_empty() {
                return None;
            }
            let out = t.algorithm.run(&sc, RunOptions::new(true)).ok()?;
            let trace = out.trace.as_ref()?;
            want.retain(|(_, kinds)| !crate::checkers::has_evidence(trace.events(), kinds));
        }
        let (property, kinds) = open?.into_iter().next()?;
        Some((
            property,
            kinds.iter().map(|k| k.to_string()).collect(),
            seeds.len() as u64,
        ))
    }
}

/// Each of `checkers` that needs evidence to judge anything, with the event kinds it reads
/// ([`crate::harness::Checker::evidence`]: a built-in checker's is its property's `EVIDENCE`).
pub(crate) fn evidence_wanted(
    checkers: &[Box<dyn crate::harness::Checker>],
) -> Vec<(String, &'static [&'static str])> {
    checkers
        .iter()
        .filter_map(|c| {
            // The checker's own: a spec may build its own checker under a built-in name,
            // reading other events than the built-in does.
            let kinds = c.evidence();
            (!kinds.is_empty()).then(|| (c.property().to_string(), kinds))
        })
        .collect()
}

/// A failing scenario shrunk by [`shrink_scenario`].
#[derive(Clone, Debug)]
pub struct ShrinkOutcome {
    /// The smallest scenario found that fails the same way, named `<name>-shrunk`, its
    /// description saying from what it was shrunk and its `expect` the original's; the
    /// original itself when the smallest did not fail again at the end (`verified` false).
    pub scenario: Scenario,
    /// Whether `scenario` was run once more at the end and failed the same way.
    pub verified: bool,
    /// Candidate runs made.
    pub runs: usize,
    /// Accepted shrinking steps.
    pub steps: usize,
    /// The search was ended early by `give_up` (the smallest scenario verified by then is
    /// kept).
    pub interrupted: bool,
    /// The search ran out of candidate runs (`ShrinkOptions::max_runs`) before it could try
    /// every smaller scenario: the result need not be minimal.
    pub budget_spent: bool,
    /// The original, run again, ended otherwise than `label` (a pass, another failure): the
    /// algorithm is likely not deterministic, and nothing was shrunk (`verified` false). It
    /// was shrunk towards what the second run gave, a pass included (stop 64).
    pub irreproducible: Option<String>,
}

/// Whether a failure with verdict label `label` can be shrunk, or why not: a run that
/// differed from itself (`nondeterministic`) has no one behaviour to keep, and a run whose
/// property could not be judged (`unjudged:<property>`, most often because it ended before the
/// property could be decided) would only shrink into a shorter run that judges even less: a
/// one-node scenario of a few milliseconds, which shows nothing.
pub fn shrinkable(label: &str) -> Result<(), &'static str> {
    if label == "nondeterministic" {
        Err("a run that differed from itself has no one behaviour to keep")
    } else if label.starts_with("unjudged") {
        Err(
            "a run that could not be judged is not a failure to shrink: a smaller, shorter \
             run only judges less. Give the scenario more time (duration_ms) or fewer faults \
             and run it again",
        )
    } else {
        Ok(())
    }
}

/// `f` under `stop` and `deadline` ([`sincro_harness::engine::stoppable_until`]) when a stop
/// flag is given; as it is otherwise.
fn within<R>(stop: Option<&AtomicBool>, deadline: Option<Instant>, f: impl FnOnce() -> R) -> R {
    match stop {
        Some(stop) => sincro_harness::engine::stoppable_until(stop, deadline, f),
        None => f(),
    }
}

/// Most rounds [`shrink_scenario`] shrinks its result again (each round a whole shrink, within
/// the same run cap).
pub const FIXPOINT_ROUNDS_MAX: usize = 8;

/// Whether the correct variant of `alg` fails `sc`, a scenario of one of its buggy variants,
/// the same way (`label`): then the failure is no catch of the planted bug. Asked only for a
/// variant whose bug needs fault classes outside the model ([`Algorithm::bug_classes`]): its
/// scenarios leave the correct variant's model, where the correct variant may break too
/// (stop 70's probe: 29 of 40 failing seeds of `mutex.token-ring / no-generation`, whose
/// delay spikes the model admits as "two tokens for a while", failed the correct variant
/// alike, and were reported as catches). Inside the model the correct variant holds by its
/// promise, and nothing is run.
pub fn shared_by_correct(alg: &dyn Algorithm, sc: &Scenario, label: &str) -> bool {
    if sc.variant == "correct"
        || alg.bug_classes(&sc.variant).is_empty()
        || !alg.info().variants.iter().any(|v| v.name == "correct")
    {
        return false;
    }
    let mut correct = sc.clone();
    correct.variant = "correct".into();
    alg.run(&correct, QUICK)
        .is_ok_and(|o| o.verdict.label() == label)
}

/// Shrinks `sc`, a scenario of `alg` whose run fails with verdict label `label`, to a smaller
/// one that fails the same way: the same verdict through comparable events
/// ([`failure_signature`]), each candidate within [`shrink_step_budget`] of the original run.
/// It shrinks twice, with the failing run's schedule pinned (removing an input or a fault keeps
/// the delays, losses and duplicates of every message still sent) and with delays redrawn from
/// the seed (which sometimes finds another, smaller failing schedule), and keeps the smaller;
/// a failure at a run limit (a message storm), or with `opts.keep_schedule` off, only with
/// delays redrawn. Each candidate runs with the trace off first, and again with a trace of
/// type words only when it fails with the original's label and its events must be compared.
/// A label [`shrinkable`] refuses (`nondeterministic`, `unjudged:…`) is not shrunk: the
/// original comes back unchanged but for its description, with no candidate run and
/// `verified` false.
/// After the two searches, the smallest result is shrunk again with its own schedule pinned
/// (unless `opts.keep_schedule` is off), round after round (at most
/// [`FIXPOINT_ROUNDS_MAX`]), until a round finds nothing smaller.
/// `give_up` is asked before every candidate run; once it says so, every further candidate
/// is rejected and the smallest scenario verified so far is the result. `stop`, when given,
/// also ends the candidate run in flight, as does `deadline`
/// ([`stoppable_until`](sincro_harness::engine::stoppable_until)); the runs that check and
/// pin the result are never cut. `sincro fuzz` shrinks its failures
/// with this, and `sincro shrink` a scenario file.
pub fn shrink_scenario(
    alg: &dyn Algorithm,
    sc: &Scenario,
    label: &str,
    opts: &ShrinkOptions,
    give_up: &mut dyn FnMut() -> bool,
    stop: Option<&AtomicBool>,
    deadline: Option<Instant>,
) -> ShrinkOutcome {
    let unshrunk = |why: &str, irreproducible: Option<String>| {
        // The original is the answer, marked as not reproduced by a smaller scenario.
        let mut out = sc.clone();
        out.description = format!("{}; not shrunk: {why}", sc.description);
        ShrinkOutcome {
            scenario: out,
            verified: false,
            runs: 0,
            steps: 0,
            interrupted: false,
            budget_spent: false,
            irreproducible,
        }
    };
    if let Err(why) = shrinkable(label) {
        return unshrunk(why, None); // nothing is run
    }
    let interrupted = std::cell::Cell::new(false);
    // A run cut at a limit (a message storm, a trace too long) has no interleaving worth
    // keeping, and recording one of hundreds of thousands of messages only slows every
    // candidate: it shrinks from the seed alone.
    let at_limit = label.starts_with("limit_exceeded");
    // The original runs again twice (its schedule, its signature), traced: under the stop and
    // the deadline too (stop 69's probe: a 10 s --shrink-time took 40 s, 34 s of it in these
    // runs of a 10,000-node scenario, which no deadline bounded).
    let pinned = (!at_limit && opts.keep_schedule)
        .then(|| within(stop, deadline, || pin_schedule(alg, sc, label)))
        .flatten();
    // A limit's signature names the limit and reads no event.
    let original = within(stop, deadline, || {
        alg.run(sc, if at_limit { QUICK } else { TRACED })
    })
    .ok();
    if stop.is_some_and(|s| s.load(Ordering::Relaxed))
        || deadline.is_some_and(|d| Instant::now() >= d)
    {
        let mut out = unshrunk("cut short before the original ran again", None);
        out.interrupted = true;
        return out;
    }
    if let Some(again) = original.as_ref().map(|o| o.verdict.label()) {
        if again != label {
            let why = format!(
                "run again, it ended `{again}`, not `{label}`: the algorithm is likely not \
                 deterministic (a clock, a thread, hash order or randomness of its own; \
                 `--check-determinism`, SINCRO_CHECK_DETERMINISM=1 in tests, names the first \
                 line where two runs differ)"
            );
            return unshrunk(&why, Some(why.clone()));
        }
    }
    let want = original
        .as_ref()
        .map_or_else(|| label.to_string(), failure_signature);
    let budget = original.as_ref().and_then(shrink_step_budget);
    let want_label = original
        .as_ref()
        .map_or_else(|| label.to_string(), |o| o.verdict.label());
    let same = |c: &Scenario| {
        // A buggy variant's failure shrinks to one the correct variant does not share.
        let fails = |c: &Scenario| {
            candidate_fails(alg, c, &want_label, &want) && !shared_by_correct(alg, c, &want_label)
        };
        match budget {
            Some(steps) if steps < c.limits.max_events => {
                let mut c = c.clone();
                c.limits.max_events = steps;
                fails(&c)
            }
            _ => fails(c),
        }
    };
    // Candidates actually run, over both searches: `opts.max_runs` bounds the two together
    // (each search alone used to take the whole cap), and a candidate rejected unrun (time
    // up, interrupted, cap reached) is not counted.
    let ran = std::cell::Cell::new(0usize);
    let mut shrink_from = |from: &Scenario| {
        let mut still_fails = |c: &Scenario| {
            if ran.get() >= opts.max_runs {
                return false;
            }
            if interrupted.get() || give_up() {
                // Reject this candidate and stop: the shrinker ends at once with the
                // smallest scenario verified so far.
                interrupted.set(true);
                return false;
            }
            ran.set(ran.get() + 1);
            let Some(stop) = stop else { return same(c) };
            // A candidate the stop or the deadline cuts short is rejected (its verdict is
            // "interrupted").
            let fails = sincro_harness::engine::stoppable_until(stop, deadline, || same(c));
            if stop.load(Ordering::Relaxed) || deadline.is_some_and(|d| Instant::now() >= d) {
                interrupted.set(true);
            }
            fails
        };
        shrink::shrink_until(from, &mut still_fails, opts, &|| interrupted.get())
    };
    // Counts first, then the knobs of the network and clocks still on: a round that only
    // turns one off is progress (a shrunk file kept a `reorder` its bug did not need).
    let size = |s: &Scenario| {
        let z = ScenarioSize::of(s);
        (
            z.faults + z.inputs + z.nodes,
            z.nodes,
            z.duration_ms,
            shrink::noise(s),
        )
    };
    let mut result = shrink_from(sc);
    let mut steps = result.steps;
    if let Some(p) = &pinned {
        let other = shrink_from(p);
        steps += other.steps;
        if size(&other.scenario) < size(&result.scenario) {
            result = other;
        }
    }
    // Again from the smallest, with its own schedule pinned, until a round finds nothing
    // smaller: one round's result shrank further when given back (stop 57's probe), since a
    // smaller scenario's run pins another schedule. Within the same run cap and stop.
    let mut rounds = 0;
    while !at_limit
        && opts.keep_schedule
        && !interrupted.get()
        && ran.get() < opts.max_runs
        && rounds < FIXPOINT_ROUNDS_MAX
    {
        rounds += 1;
        let Some(p) = pin_schedule(alg, &result.scenario, label) else {
            break;
        };
        let again = shrink_from(&p);
        steps += again.steps;
        if size(&again.scenario) >= size(&result.scenario) {
            break;
        }
        result = again;
    }
    result.steps = steps;
    result.runs = ran.get();
    let verified = same(&result.scenario);
    let mut out = if verified {
        // A recorded schedule keeps only the messages the shrunk run sends, if the scenario
        // pinned that way still fails as verified (the pin checks the label alone; what is
        // written must be the run that was verified).
        match result.scenario.schedule {
            Schedule::Recorded(_) => pin_schedule(alg, &result.scenario, label)
                .filter(|p| same(p))
                .unwrap_or(result.scenario),
            _ => result.scenario,
        }
    } else {
        sc.clone()
    };
    let before = ScenarioSize::of(sc);
    // The failure kept is the one shrunk (`label`), and the file expects it, as a campaign's
    // does: an `expect` the original did not meet (a file edited into failing another way)
    // made the shrunk file "NOT as expected"; an input with none gave a file `run` failed;
    // and a run limit, which no `expect` names, kept one that could never be met.
    out.expect = expect_of(label);
    // A nameless input is named after its algorithm and variant (it was named `-shrunk`).
    // A shrunk file shrunk again keeps its name and its first description (each pass added
    // `-shrunk` and nested the last description, stop 72's probe).
    out.name = if sc.name.is_empty() {
        format!("{}-{}-shrunk", sc.algorithm, sc.variant)
    } else if sc.name.ends_with("-shrunk") {
        sc.name.clone()
    } else {
        format!("{}-shrunk", sc.name)
    };
    let first_description = match sc.description.strip_prefix("shrunk from ") {
        Some(rest) => rest
            .split_once("; before shrinking: ")
            .map_or("", |(_, d)| d),
        None => sc.description.as_str(),
    };
    // The original's description names faults and moments the shrunk file may no longer
    // hold: it follows, as what was shrunk.
    let unchanged = ScenarioSize::of(&out) == before;
    out.description = format!(
        "shrunk from {} faults / {} inputs / {} nodes / {} ms{} in {} candidate runs{}{}",
        before.faults,
        before.inputs,
        before.nodes,
        before.duration_ms,
        if before.params_entries > 0 {
            format!(" / {} params entries", before.params_entries)
        } else {
            String::new()
        },
        result.runs,
        if !verified {
            " (the shrunk scenario did not reproduce; this is the original)"
        } else if unchanged && interrupted.get() {
            " (cut short before a smaller scenario was found: the original's size)"
        } else if unchanged {
            " (no smaller scenario fails the same way)"
        } else {
            ""
        },
        if first_description.is_empty() {
            String::new()
        } else {
            format!("; before shrinking: {first_description}")
        },
    );
    ShrinkOutcome {
        scenario: out,
        verified,
        runs: result.runs,
        steps: result.steps,
        interrupted: interrupted.get(),
        budget_spent: result.runs >= opts.max_runs,
        irreproducible: None,
    }
}

/// Whether shrink candidate `c` fails as the original did: the verdict's label `want_label`
/// and the [`failure_signature`] `want`. Most candidates fail otherwise or not at all, so each
/// first runs with the trace off (the verdict is the same either way: the checkers see every
/// event in both); only one with the original's label runs again with a trace of type words,
/// all the signature of a violation reads (a limit's signature needs no trace at all). A
/// failure at `limits.max_trace_bytes` is the exception: it needs the full trace.
fn candidate_fails(alg: &dyn Algorithm, c: &Scenario, want_label: &str, want: &str) -> bool {
    if want.contains("max_trace_bytes") {
        // The trace's own limit: only a run recording the whole trace reaches it.
        return alg
            .run(c, TRACED)
            .is_ok_and(|o| failure_signature(&o) == want);
    }
    let Ok(quick) = alg.run(c, QUICK) else {
        return false;
    };
    if quick.verdict.label() != want_label {
        return false;
    }
    if !matches!(quick.verdict, Verdict::Violation(_)) {
        return failure_signature(&quick) == want;
    }
    alg.run(c, SIGNATURE)
        .is_ok_and(|o| failure_signature(&o) == want)
}

/// What a failure is, as shrinking compares them: the verdict's label and, for a violation,
/// the kinds of the events it names (`cs_enter`, `deliver:Coordinator`; faults left out, and
/// node ids too, as shrinking renumbers nodes), sorted; for a limit, which limit. A candidate
/// that fails with the same label through other events (a bug that first showed as a
/// mutual exclusion violation between two grants, shrunk into one between a grant and a
/// restart) is not the same failure. Needs a traced run; without a trace, the label.
pub fn failure_signature(out: &crate::harness::engine::Outcome) -> String {
    let label = out.verdict.label();
    match (&out.verdict, &out.trace) {
        (Verdict::Violation(v), Some(trace)) => {
            let mut kinds: Vec<String> = v
                .events
                .iter()
                .filter_map(|&id| trace.events().get(usize::try_from(id).ok()?))
                .filter(|e| !matches!(e.kind, crate::harness::EventKind::Fault { .. }))
                .map(crate::algorithms::coverage::event_kind)
                .collect();
            kinds.sort();
            format!("{label} [{}]", kinds.join(", "))
        }
        (Verdict::LimitExceeded { limit }, _) => {
            let which: String = limit.chars().take_while(|c| !c.is_ascii_digit()).collect();
            format!("{label} {}", which.trim())
        }
        // A panic is the same failure where it panics at the same place (stop 64: a shrinker
        // that took any panic for the same turned a node's `REAL BUG` into another node's
        // division by zero, and the failure named only that).
        (Verdict::Panic { message, .. }, _) => format!("{label} {}", panic_site(message)),
        _ => label,
    }
}

/// Where a panic's message says it happened: the `file:line` the panic hook adds, or, without
/// one, the message with each run of digits masked (the values in it may change as a scenario
/// shrinks, the text naming the bug does not).
fn panic_site(message: &str) -> String {
    match message
        .rsplit_once(" (at ")
        .and_then(|(_, at)| at.strip_suffix(')'))
    {
        Some(at) => format!("at {at}"),
        None => {
            let mut masked = String::new();
            for c in message.chars() {
                if !c.is_ascii_digit() {
                    masked.push(c);
                } else if !masked.ends_with('#') {
                    masked.push('#');
                }
            }
            masked
        }
    }
}

/// A shrink candidate runs at most this many times the original failing run's steps...
pub const SHRINK_STEPS_FACTOR: u64 = 8;
/// ... and at least this many steps.
pub const SHRINK_STEPS_MIN: u64 = 20_000;

/// The step budget of a shrink candidate whose original run is `original`: a candidate that
/// fails the same way stops at its violation, near the original's length; one that no longer
/// fails would otherwise run its whole duration with a full trace (a token ring circulating
/// for 70 s of simulated time filled the 256 MiB trace limit, and shrinking one such failure
/// took 4.8 s and 349 MiB). Past the budget the candidate ends with `limit_exceeded` and is
/// rejected. `None` (no budget) when the failure itself is a limit.
pub fn shrink_step_budget(original: &crate::harness::engine::Outcome) -> Option<u64> {
    if matches!(original.verdict, Verdict::LimitExceeded { .. }) {
        return None;
    }
    Some(
        original
            .stats
            .events
            .saturating_mul(SHRINK_STEPS_FACTOR)
            .max(SHRINK_STEPS_MIN),
    )
}

/// `sc` with its schedule replaced by the record of its own run
/// ([`Schedule::record`](crate::harness::schedule::Schedule::record)), when that replays to the
/// same verdict `label`; `None` for a PCT schedule (already fixed by the priorities), on
/// turmoil (it draws its own latencies), or when the record does not reproduce the failure.
pub fn pin_schedule(alg: &dyn Algorithm, sc: &Scenario, label: &str) -> Option<Scenario> {
    if matches!(sc.schedule, Schedule::Pct(_)) || sc.engine == EngineKind::Turmoil {
        return None;
    }
    let trace = alg.run(sc, RunOptions::new(true)).ok()?.trace?;
    let mut pinned = sc.clone();
    pinned.schedule = Schedule::record(&trace);
    let same = alg
        .run(&pinned, QUICK)
        .is_ok_and(|o| o.verdict.label() == label);
    (same && pinned.validate().is_ok()).then_some(pinned)
}

/// Fuzzes one target to the end of its seed range (no shard, no shrinking); `progress` is
/// called after each run with the number of failures so far.
pub fn fuzz_target(
    t: &Target,
    cfg: &FuzzConfig,
    stop: &AtomicBool,
    progress: &(dyn Fn(u64) + Sync),
) -> TargetReport {
    let opts = CampaignOptions::default();
    let mut run = TargetRun::new(t, cfg, &opts);
    run.run(stop, None, &Live::default(), progress);
    run.report()
}

/// The result of a campaign.
#[derive(Clone, Debug)]
pub struct CampaignReport {
    /// One report per target, in the order given.
    pub targets: Vec<TargetReport>,
    /// Wall seconds of the whole campaign.
    pub wall_s: f64,
    /// Runs executed over all targets.
    pub executed: u64,
    /// Stopped by Ctrl-C.
    pub interrupted: bool,
    /// The wall-clock budget, if one was given.
    pub budget: Option<Duration>,
    /// The shard run.
    pub shard: Shard,
    /// First seed of the range.
    pub seed_start: u64,
    /// Seeds in the range ([`UNBOUNDED`] when only the budget bounds it).
    pub seeds: u64,
    /// Whether runs outside the fault model were allowed (failures are findings then).
    pub beyond_model: bool,
    /// How its scenarios were generated besides the seeds ([`generation`]): shards of one
    /// campaign share it, so `merge-reports` refuses reports that differ in it.
    pub generation: String,
    /// Every seed was run twice and the traces compared (`--check-determinism`): `executed`
    /// counts each seed once.
    pub determinism_checked: bool,
}

/// How `cfg` generates its scenarios besides the seed range and the fault model's bounds:
/// strategy, node range, active phase, engine, coverage guidance; and how it counts them:
/// `keep-going` (every failure, not the first) and `determinism checked` when on. Two shards
/// merge into one campaign only with the same: a shard that stopped at its first failure
/// added to one that kept going, or one that checked determinism to one that did not, makes a
/// merged count that no campaign had (stop 64).
pub fn generation(cfg: &FuzzConfig) -> String {
    let g = &cfg.gen;
    format!(
        "strategy {:?}, nodes {}..={}, active {} ms{}, engine {:?}, coverage {}{}{}",
        g.strategy,
        g.nodes_min,
        g.nodes_max,
        g.active_ms,
        if g.phase_swarm { " (swarm)" } else { "" },
        g.engine,
        if cfg.coverage { "on" } else { "off" },
        if cfg.keep_going { ", keep-going" } else { "" },
        if cfg.check_determinism {
            ", determinism checked"
        } else {
            ""
        }
    )
}

/// Runs a campaign over `targets`.
///
/// Without a budget each target runs its whole seed range, one after the other. With a budget,
/// the remaining time is split evenly among the targets still open, in rounds: each gets
/// `remaining / open targets`; a target that ends early (its seeds exhausted, or stopped at its
/// first failure) hands its leftover to the targets after it and to the next round.
pub fn campaign(
    targets: &[Target],
    cfg: &FuzzConfig,
    opts: &CampaignOptions,
    budget: Option<Duration>,
    stop: &AtomicBool,
    live: &Live,
) -> CampaignReport {
    let started = Instant::now();
    let deadline = budget.map(|b| started + b);
    let mut runs: Vec<TargetRun> = targets
        .iter()
        .map(|t| TargetRun::new(t, cfg, opts).with_deadline(deadline))
        .collect();
    'rounds: loop {
        let open: Vec<usize> = (0..runs.len()).filter(|&i| runs[i].is_open()).collect();
        if open.is_empty() {
            break;
        }
        for (n, &i) in open.iter().enumerate() {
            let now = Instant::now();
            if stop.load(Ordering::Relaxed) || deadline.is_some_and(|d| now >= d) {
                break 'rounds;
            }
            let slice = deadline.map(|d| now + (d - now) / (open.len() - n) as u32);
            *live.current.lock().expect("no poisoning") =
                Some((targets[i].name(), runs[i].seeds_in_shard()));
            live.target_runs
                .store(runs[i].executed.load(Ordering::Relaxed), Ordering::Relaxed);
            runs[i].run(stop, slice, live, &|_| {});
            if runs[i].refused() {
                // Bad input: the campaign stops here, whatever the other targets would do.
                break 'rounds;
            }
        }
        if deadline.is_none() {
            break;
        }
    }
    let reports: Vec<TargetReport> = runs
        .iter()
        .map(|r| {
            let mut report = r.report();
            // A target that found nothing must have judged something (not after a Ctrl-C:
            // the campaign ends at once).
            if report.first.is_none()
                && report.executed > 0
                && report.bad_input.is_none()
                && !stop.load(Ordering::Relaxed)
            {
                report.never_judged = r.never_judged();
            }
            report
        })
        .collect();
    CampaignReport {
        executed: reports.iter().map(|r| r.executed).sum(),
        targets: reports,
        wall_s: started.elapsed().as_secs_f64(),
        interrupted: stop.load(Ordering::Relaxed),
        budget,
        shard: opts.shard,
        seed_start: cfg.seed_start,
        seeds: cfg.seeds,
        beyond_model: cfg.gen.beyond_model,
        generation: generation(cfg),
        determinism_checked: cfg.check_determinism,
    }
}

/// Whether a target's outcome is as expected, and a one-line description of it.
pub fn outcome(r: &TargetReport, beyond_model: bool) -> (bool, String) {
    let caught = r.seeds_to_find.unwrap_or(0);
    if let Some((seed, msg)) = &r.bad_input {
        return (
            false,
            format!("BAD INPUT: seed {seed}'s scenario was refused: {msg}"),
        );
    }
    if !r.write_errors.is_empty() {
        // The error itself is on stderr and in the JUnit report's description.
        return (
            false,
            "LOST OUTPUT: a failure file could not be written; the campaign stopped there".into(),
        );
    }
    if r.executed == 0 {
        // A shard may hold no seed of a short range; a target the budget never reached was
        // not tested, which a regression suite must not read as "as expected".
        return if r.complete {
            (true, "not run: no seed of the range in this shard".into())
        } else {
            (
                false,
                "NOT RUN: the time budget, a stop (Ctrl-C, SIGTERM or SIGHUP) or another target's bad input came \
                 before its first seed"
                    .into(),
            )
        };
    }
    if let Some(nd) = &r.nondeterministic {
        return (
            false,
            format!(
                "NONDETERMINISTIC: seed {} gave two different traces",
                nd.seed
            ),
        );
    }
    if let (Some((property, kinds, seeds)), None) = (&r.never_judged, &r.first) {
        if property.is_empty() {
            return (
                false,
                format!(
                    "COULD NOT JUDGE: {} promises no property and none was asked for, so its \
                     {} runs judged nothing",
                    r.algorithm, r.runs
                ),
            );
        }
        return (
            false,
            format!(
                "COULD NOT JUDGE `{property}`: none of the first {seeds} seeds' runs had an \
                 event it reads ({}), so its {} runs judged nothing",
                kinds
                    .iter()
                    .map(|k| crate::checkers::evidence_text(k))
                    .collect::<Vec<_>>()
                    .join(", "),
                r.runs
            ),
        );
    }
    match (r.buggy, r.first.is_some()) {
        // "Could not judge" is never "breaks", inside the model or out of it.
        (_, true)
            if beyond_model
                && r.first
                    .as_ref()
                    .is_some_and(|f| f.label.starts_with("unjudged:")) =>
        {
            (
                true,
                format!(
                    "explored: could not judge outside its fault model (seed {})",
                    r.first.as_ref().map_or(0, |f| f.seed)
                ),
            )
        }
        (_, true) if beyond_model => (
            true,
            format!("explored: breaks outside its fault model after {caught} seeds"),
        ),
        (_, false) if beyond_model => (true, "explored: held even outside its fault model".into()),
        (false, false) => (
            true,
            if r.complete {
                "no violation".into()
            } else {
                format!("no violation in {} seeds (cut short)", r.runs)
            },
        ),
        (true, true) => (
            true,
            format!(
                "caught after {caught} seed{}",
                if caught == 1 { "" } else { "s" }
            ),
        ),
        // A run limit is no property of the algorithm: said apart, with what to change.
        (false, true)
            if r.first
                .as_ref()
                .is_some_and(|f| f.label == "limit_exceeded") =>
        {
            (
                false,
                "UNEXPECTED: a generated run hit a run limit (no property broke; its verdict \
             names the limit. A generated scenario's limits grow with its node count, its \
             run with --active-ms too: a shorter --active-ms or a smaller --nodes-max keeps \
             it within them)"
                    .into(),
            )
        }
        (false, true) => (
            false,
            "UNEXPECTED: a correct variant failed inside its fault model".into(),
        ),
        (true, false) if r.deep && r.runs < crate::algorithms::DEEP_BUG_SEEDS => (
            true,
            format!(
                "deep bug, not reached in {} seeds (required from {})",
                r.runs,
                crate::algorithms::DEEP_BUG_SEEDS
            ),
        ),
        (true, false) => (false, "UNEXPECTED: the bug was not caught".into()),
    }
}

/// Whether a Ctrl-C cut `r` short before it found anything (a bug not caught yet, a deep bug
/// not reached, a correct variant that held so far): it did not run its seeds, and is no
/// outcome of them.
fn cut_by_ctrl_c(r: &TargetReport, c: &CampaignReport) -> bool {
    c.interrupted
        && !r.complete
        && r.executed > 0
        && r.first.is_none()
        && r.bad_input.is_none()
        && r.nondeterministic.is_none()
        && r.never_judged.is_none()
}

/// [`outcome`] within its campaign: a target a Ctrl-C cut short before it found anything is
/// INTERRUPTED, never as expected nor "not caught" (a target never started is NOT RUN).
pub fn outcome_in(r: &TargetReport, c: &CampaignReport) -> (bool, String) {
    if cut_by_ctrl_c(r, c) {
        return (
            false,
            format!(
                "INTERRUPTED ({}) after {} of its seeds, before it found anything",
                crate::stop::cause(),
                r.runs
            ),
        );
    }
    outcome(r, c.beyond_model)
}

/// The exit code of a campaign: 2 when a generated scenario was refused (bad input) or a
/// failure file could not be written, 130 after Ctrl-C, 5 on nondeterminism, 1 on an unexpected
/// outcome (not counted with `beyond_model`), else 0.
pub fn exit_code(c: &CampaignReport) -> i32 {
    if c.targets
        .iter()
        .any(|r| r.bad_input.is_some() || !r.write_errors.is_empty())
    {
        return crate::exit::BAD_INPUT;
    }
    if c.interrupted {
        return INTERRUPTED_EXIT;
    }
    let mut code = crate::exit::PASS;
    for r in &c.targets {
        if !outcome_in(r, c).0 {
            code = crate::exit::VIOLATION;
        }
    }
    if c.targets.iter().any(|r| r.nondeterministic.is_some()) {
        code = crate::exit::NONDETERMINISM;
    }
    code
}

#[cfg(feature = "cli")]
fn describe_range(c: &CampaignReport) -> String {
    let range = if c.seeds == UNBOUNDED {
        format!("seeds {}.. (until the budget ends)", c.seed_start)
    } else {
        match c.seed_start.checked_add(c.seeds) {
            Some(end) => format!("seeds [{}, {end})", c.seed_start),
            // A range that ends at the last seed, u64::MAX: its end is not a u64.
            None => format!("seeds [{}, {}]", c.seed_start, u64::MAX),
        }
    };
    if c.shard.n == 1 {
        format!("{range}, shard 1/1 (every seed)")
    } else {
        format!(
            "{range}, shard {}: the seeds s with (s - {}) % {} == {}",
            c.shard,
            c.seed_start,
            c.shard.n,
            c.shard.k - 1
        )
    }
}

/// Peak memory figures for the summary.
#[derive(Clone, Copy, Debug, Default)]
pub struct Rss {
    /// Peak RSS after 10 s of campaign (KiB), if the campaign lasted that long.
    pub at_10s_kib: Option<u64>,
    /// Peak RSS at the end (KiB).
    pub end_kib: Option<u64>,
}

/// The summary: one row per target (a table within 100 columns, long names wrapped),
/// the totals, the expected catches of buggy variants with their replay commands, then the
/// unexpected outcomes, last and loud, and a closing line (`9/9 targets as expected`).
#[cfg(feature = "cli")]
pub fn summary(c: &CampaignReport, rss: Rss) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "campaign: {}", describe_range(c));
    let name = |r: &TargetReport| {
        format!(
            "{} / {}{}",
            r.algorithm,
            r.variant,
            if r.buggy { " [bug]" } else { "" }
        )
    };
    let mut grid = crate::cli::grid::Grid::new(&[
        "target", ">seeds", ">fail", ">first", ">runs/s", "shrunk", "outcome",
    ]);
    for r in &c.targets {
        // The shrunk size only: an unshrunk failure (`--no-shrink`) has its original size in
        // its own block below, not in a column that calls it shrunk.
        let shrunk = r
            .first
            .as_ref()
            .and_then(|f| f.shrunk.as_ref().map(|sh| format_size(&sh.size)))
            .unwrap_or_else(|| "-".into());
        grid.row([
            name(r),
            r.runs.to_string(),
            r.failures.to_string(),
            r.first.as_ref().map_or("-".into(), |f| f.seed.to_string()),
            format!("{:.0}", r.executed as f64 / r.wall_s.max(1e-9)),
            shrunk,
            outcome_in(r, c).1,
        ]);
    }
    s.push_str(&grid.text());
    let _ = writeln!(
        s,
        "total: {} runs in {:.2} s wall, {:.0} runs/s{}; peak RSS {}{}",
        c.executed,
        c.wall_s,
        c.executed as f64 / c.wall_s.max(1e-9),
        c.budget.map_or(String::new(), |b| format!(
            " (budget {})",
            humantime::format_duration(b)
        )),
        format_kib(rss.end_kib),
        if c.budget.is_some() {
            format!(" (after 10 s: {})", format_kib(rss.at_10s_kib))
        } else {
            String::new()
        }
    );
    let unfiled: Vec<String> = c
        .targets
        .iter()
        .filter(|r| r.write_errors.is_empty() && r.failures > r.files_written)
        .map(|r| format!("{} of {}", r.failures - r.files_written, name(r)))
        .collect();
    if !unfiled.is_empty() {
        let _ = writeln!(
            s,
            "failing seeds with no file (--max-files caps each target's files; a guided seed \
             may draw on the seeds before it, so raise --max-files to keep more): {}",
            unfiled.join(", ")
        );
    }
    let replaced: Vec<String> = c
        .targets
        .iter()
        .flat_map(|r| &r.replaced)
        .map(|p| p.display().to_string())
        .collect();
    if !replaced.is_empty() {
        let shown = replaced.len().min(5);
        let _ = writeln!(
            s,
            "replaced {} failure file{} an earlier campaign wrote here, holding other failures \
             (use another --out to keep both): {}{}",
            replaced.len(),
            if replaced.len() == 1 { "" } else { "s" },
            replaced[..shown].join(", "),
            if shown < replaced.len() { ", …" } else { "" }
        );
    }
    if c.determinism_checked {
        // The runs above count each seed once; say what else ran, and what it found.
        let mismatched = c
            .targets
            .iter()
            .filter(|r| r.nondeterministic.is_some())
            .count();
        let _ = writeln!(
            s,
            "determinism: every seed ran twice, traces compared: {}",
            match mismatched {
                0 if c.executed == 0 => "no seed ran, nothing was compared".to_string(),
                0 => "no mismatch".to_string(),
                k => format!(
                    "a mismatch in {k} of {} target{} (exit {})",
                    c.targets.len(),
                    if c.targets.len() == 1 { "" } else { "s" },
                    crate::exit::NONDETERMINISM
                ),
            }
        );
    }
    if c.interrupted {
        let _ = writeln!(
            s,
            "interrupted ({}): runs in flight stopped (not counted), {}",
            crate::stop::cause(),
            if unfiled.is_empty() {
                "every failure found is written"
            } else {
                "the failure files due were written (--max-files: see the count above)"
            }
        );
    }
    if let Some(b) = c.budget {
        let cut: u64 = c.targets.iter().map(|r| r.shrinks_cut).sum();
        let left = c.targets.iter().filter(|r| !r.complete).count();
        if c.wall_s >= b.as_secs_f64() || cut > 0 {
            let _ = writeln!(
                s,
                "time budget reached: no run started after it; {left} target(s) cut short, \
                 {cut} shrink(s) cut short (the smallest scenario verified so far was written); \
                 runs in flight stopped (not counted)"
            );
        }
    }

    let cut: u64 = c.targets.iter().map(|r| r.shrinks_cut).sum();
    if c.budget.is_none() && cut > 0 {
        let _ = writeln!(
            s,
            "{cut} shrink(s) stopped at the shrink time limit (--shrink-time): the smallest \
             scenario verified by then was written"
        );
    }

    for r in c.targets.iter().filter(|r| r.shared_with_correct > 0) {
        let _ = writeln!(
            s,
            "{} / {}: {} failing seed(s) not counted as catches: the correct variant fails \
             them the same way (the faults the bug needs lie outside its model)",
            r.algorithm, r.variant, r.shared_with_correct
        );
    }

    // Expected catches first, then what is not as expected (loud, last).
    let (expected, unexpected): (Vec<&TargetReport>, Vec<&TargetReport>) =
        c.targets.iter().partition(|r| outcome_in(r, c).0);
    let heading = |s: &mut String, rs: &[&TargetReport], title: &str| {
        if rs
            .iter()
            .any(|r| r.first.is_some() || r.nondeterministic.is_some())
        {
            let _ = writeln!(s, "\n{title}");
        }
        for r in rs {
            // The first failure, and the first nondeterministic seed when it is another one.
            let nd = r
                .nondeterministic
                .as_ref()
                .filter(|nd| r.first.as_ref().is_none_or(|f| f.seed != nd.seed));
            for f in r.first.iter().chain(nd) {
                write_failure(s, r, f);
            }
        }
    };
    let caught_title = if c.beyond_model {
        "== what fuzzing outside the fault models found (explored, not a failure) =="
    } else {
        "== caught as expected: the planted bugs of buggy variants =="
    };
    heading(&mut s, &expected, caught_title);
    heading(
        &mut s,
        &unexpected,
        "== NOT AS EXPECTED: a correct variant failed, a bug was missed, or a run was refused ==",
    );
    for r in &unexpected {
        let (_, text) = outcome_in(r, c);
        let stopped = c.interrupted && !r.complete && r.first.is_none();
        let label = if stopped {
            "INTERRUPTED"
        } else {
            "NOT AS EXPECTED"
        };
        s.push_str(&crate::cli::grid::wrap(
            &format!("{label}: {}: {text}", name(r)),
            2,
        ));
    }
    write_coverage(&mut s, &c.targets, &name);
    let run: Vec<&TargetReport> = c.targets.iter().filter(|r| r.executed > 0).collect();
    if c.beyond_model {
        // Outside the models a correct variant may break too: what broke, what held.
        let broke = run.iter().filter(|r| r.first.is_some()).count();
        let _ = writeln!(
            s,
            "\n{}/{} targets as expected (explored outside their fault models: {broke} found \
             a failure, {} held{})",
            c.targets.len() - unexpected.len(),
            c.targets.len(),
            run.len() - broke,
            match c.targets.len() - run.len() {
                0 => String::new(),
                n => format!(", {n} not run"),
            }
        );
        return s;
    }
    // A target whose failure file was lost caught nothing anyone can replay.
    let caught = run
        .iter()
        .filter(|r| r.buggy && r.first.is_some() && r.write_errors.is_empty())
        .count();
    let lost = run.iter().filter(|r| !r.write_errors.is_empty()).count();
    let buggy_cut = run
        .iter()
        .filter(|r| r.buggy && cut_by_ctrl_c(r, c))
        .count();
    // A refused or nondeterministic target did not hold, whatever it found before; one cut
    // short held over fewer seeds than asked, and is counted apart.
    let quiet = |r: &&&TargetReport| {
        !r.buggy
            && r.first.is_none()
            && r.bad_input.is_none()
            && r.nondeterministic.is_none()
            && r.never_judged.is_none()
    };
    let cause = crate::stop::cause();
    let held = run.iter().filter(quiet).filter(|r| r.complete).count();
    let held_cut = run.iter().filter(quiet).filter(|r| !r.complete).count();
    let unreached = run
        .iter()
        .filter(|r| r.deep && r.first.is_none() && r.as_expected && !cut_by_ctrl_c(r, c))
        .count();
    // A Ctrl-C that cut a target short before it found anything: not as expected (its JUnit
    // testcase is a failure of type `interrupted`), counted in `unexpected`.
    let _ = writeln!(
        s,
        "\n{}/{} targets as expected ({caught} {} caught, {}{held} correct {} held{})",
        c.targets.len() - unexpected.len(),
        c.targets.len(),
        if caught == 1 { "bug" } else { "bugs" },
        match unreached {
            0 => String::new(),
            n => format!(
                "{n} deep {} not reached, ",
                if n == 1 { "bug" } else { "bugs" }
            ),
        },
        if held == 1 { "variant" } else { "variants" },
        match (held_cut, c.targets.len() - run.len()) {
            (0, 0) => String::new(),
            (0, n) => format!(", {n} not run"),
            (k, 0) if c.interrupted => format!(", {k} correct cut short by {cause}"),
            (k, n) if c.interrupted => format!(", {k} correct cut short by {cause}, {n} not run"),
            (k, 0) => format!(", {k} correct cut short without a violation"),
            (k, n) => format!(", {k} correct cut short without a violation, {n} not run"),
        } + &match buggy_cut {
            0 => String::new(),
            n => format!(", {n} buggy cut short by {cause} before the bug showed"),
        } + &match lost {
            0 => String::new(),
            n => format!(", {n} with a failure file lost"),
        }
    );
    s
}

/// The coverage lines of a summary: features and corpus over the guided targets, the goals
/// reached, and each goal never reached.
#[cfg(feature = "cli")]
fn write_coverage(
    s: &mut String,
    targets: &[TargetReport],
    name: &dyn Fn(&TargetReport) -> String,
) {
    let guided: Vec<(&TargetReport, &CoverageReport)> = targets
        .iter()
        .filter_map(|r| r.coverage.as_ref().filter(|c| c.runs > 0).map(|c| (r, c)))
        .collect();
    if guided.is_empty() {
        return;
    }
    let sum = |f: &dyn Fn(&CoverageReport) -> u64| guided.iter().map(|(_, c)| f(c)).sum::<u64>();
    s.push('\n');
    s.push_str(&crate::cli::grid::wrap(
        &format!(
            "coverage guidance: {} features reached, {} scenarios kept, {} of {} runs were mutations",
            sum(&|c| c.features as u64),
            sum(&|c| c.corpus as u64),
            sum(&|c| c.mutated),
            sum(&|c| c.runs),
        ),
        2,
    ));
    // A target that stopped at its first failure had no chance to reach its goals: only
    // those that ran their whole range (or every failure) are counted.
    let judged: Vec<&(&TargetReport, &CoverageReport)> = guided
        .iter()
        .filter(|(r, _)| r.first.is_none() || r.seeds_to_find != Some(r.runs))
        .collect();
    let goals: u64 = judged.iter().map(|(_, c)| c.goals.len() as u64).sum();
    if goals == 0 {
        return;
    }
    let reached: u64 = judged
        .iter()
        .map(|(_, c)| c.goals.iter().filter(|g| g.runs > 0).count() as u64)
        .sum();
    let stopped = guided.len() - judged.len();
    let line = format!(
        "goals (sometimes): {reached}/{goals} reached over {} targets{}{}",
        judged.len(),
        match stopped {
            0 => String::new(),
            n => format!(" ({n} stopped at their first failure not counted)"),
        },
        if reached < goals {
            "; never reached:"
        } else {
            ""
        }
    );
    s.push_str(&crate::cli::grid::wrap(&line, 2));
    for (r, c) in judged {
        for g in c.goals.iter().filter(|g| g.runs == 0) {
            s.push_str(&crate::cli::grid::wrap(
                &format!("  {}: {} ({})", name(r), g.name, g.description),
                4,
            ));
        }
    }
}

/// One failure of `r` in the summary: its verdict, its files and how to replay them.
#[cfg(feature = "cli")]
fn write_failure(s: &mut String, r: &TargetReport, f: &Failure) {
    s.push('\n');
    s.push_str(&crate::cli::grid::wrap(
        &format!(
            "{} / {} seed {}: {}",
            r.algorithm, r.variant, f.seed, f.detail
        ),
        2,
    ));
    match &f.path {
        Some(p) => {
            let _ = writeln!(
                s,
                "  original ({}): {}",
                f.size.as_ref().map_or("-".into(), format_size),
                p.display()
            );
        }
        None => {
            let _ = writeln!(s, "  (could not write the scenario file)");
        }
    }
    if let (None, Err(why)) = (&f.shrunk, shrinkable(&f.label)) {
        let _ = writeln!(s, "  not shrunk: {why}");
    }
    if let Some(why) = f.shrunk.as_ref().and_then(|sh| sh.irreproducible.as_ref()) {
        let _ = writeln!(s, "  NONDETERMINISTIC: not shrunk: {why}");
    }
    if let Some(sh) = &f.shrunk {
        if let Some(sp) = &sh.path {
            let _ = writeln!(
                s,
                "  shrunk   ({}): {}  [{} candidate runs, {} steps{}]",
                format_size(&sh.size),
                sp.display(),
                sh.runs,
                sh.steps,
                if sh.interrupted { ", cut short" } else { "" }
            );
            let _ = writeln!(s, "  replay: {}", crate::replay_command(sp, None));
        }
    }
    if let Some(p) = &f.path {
        let _ = writeln!(
            s,
            "  replay the original: {}",
            crate::replay_command(p, None)
        );
    }
}

#[cfg(feature = "cli")]
fn failure_text(f: &Failure) -> String {
    let mut t = format!("seed {}: {}", f.seed, f.detail);
    if let Some(sp) = f.shrunk.as_ref().and_then(|s| s.path.as_ref()) {
        let _ = write!(
            t,
            "\nshrunk file: {}\nreplay: {}",
            sp.display(),
            crate::replay_command(sp, None)
        );
    }
    if let Some(p) = &f.path {
        let _ = write!(
            t,
            "\noriginal file: {}\nreplay the original: {}",
            p.display(),
            crate::replay_command(p, None)
        );
    }
    t
}

/// A JUnit XML report, written by `quick-junit` to the strict schema: `<testsuites>` holding
/// one `<testsuite name="sincro fuzz">` with its `timestamp` (`started`) and `hostname`, the
/// campaign's range, runs and interruption as properties, and one `<testcase>` per target
/// (`classname` = algorithm, `name` = variant). An unexpected outcome is a `<failure>`; a buggy
/// variant caught as expected passes, with a `<system-out>` saying where it was caught. Each
/// testcase carries its figures as properties (`seeds`, `runs`, `failures`, `buggy`, and
/// `first-failure` when one was found) so that [`merge_junit`] can add shards up.
#[cfg(feature = "cli")]
pub fn junit(c: &CampaignReport, started: std::time::SystemTime, hostname: &str) -> String {
    use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};
    let mut suite = TestSuite::new(JUNIT_SUITE);
    suite.set_timestamp(chrono_time(started));
    suite.set_time(Duration::from_secs_f64(c.wall_s.max(0.0)));
    suite.extra.insert("hostname".into(), hostname.into());
    suite.add_properties([
        Property::new("range", describe_range(c)),
        Property::new("shard", c.shard.to_string()),
        Property::new("runs", c.executed.to_string()),
        Property::new("interrupted", c.interrupted.to_string()),
        Property::new("beyond-model", c.beyond_model.to_string()),
        Property::new("generation", c.generation.clone()),
    ]);
    for r in &c.targets {
        // A target a Ctrl-C cut short before it found anything did not run its seeds: no pass
        // and no "not caught" (the campaign exits 130). A bug caught before the Ctrl-C is
        // caught.
        let (ok, text) = outcome_in(r, c);
        let cut_by_ctrl_c = cut_by_ctrl_c(r, c);
        let plural =
            |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let mut out = format!(
            "{text}; {} judged, {}",
            plural(r.runs, "seed", "seeds"),
            plural(r.executed, "run", "runs")
        );
        for e in &r.write_errors {
            let _ = write!(out, "\n{e}");
        }
        if let (Some(n), Some(t)) = (r.seeds_to_find, r.time_to_find_s) {
            let _ = write!(
                out,
                "; first failure after {}, {t:.3} s",
                plural(n, "seed", "seeds")
            );
        }
        if let Some(f) = &r.first {
            let _ = write!(out, "\ncaught at {}", failure_text(f));
        }
        let status = if ok {
            TestCaseStatus::success()
        } else {
            let shown = r.nondeterministic.as_ref().or(r.first.as_ref());
            let not_run = r.executed == 0 && !r.complete;
            let message = match shown {
                Some(f) => format!("{text}: {}", f.detail),
                // (a not-run target's sentence says why; "in 0 seeds" after it was garbled,
                // stop 73's probe)
                None if cut_by_ctrl_c || not_run || !r.write_errors.is_empty() => text.clone(),
                None => format!("{text} in {} seeds", r.runs),
            };
            let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
            st.set_message(message)
                .set_type(match shown {
                    _ if !r.write_errors.is_empty() => "write_error",
                    Some(f) => f.label.as_str(),
                    None if cut_by_ctrl_c => "interrupted",
                    None if not_run => "not_run",
                    // Its runs judged nothing: no pass, and not a bug not caught either.
                    None if r.never_judged.is_some() => "could_not_judge",
                    None => "not_caught",
                })
                .set_description(out.clone());
            st
        };
        let mut case = TestCase::new(r.variant.clone(), status);
        case.set_classname(r.algorithm.clone())
            .set_time(Duration::from_secs_f64(r.wall_s.max(0.0)));
        if ok {
            case.set_system_out(out);
        }
        case.add_property(Property::new("seeds", r.runs.to_string()));
        case.add_property(Property::new("runs", r.executed.to_string()));
        case.add_property(Property::new("failures", r.failures.to_string()));
        case.add_property(Property::new("buggy", r.buggy.to_string()));
        case.add_property(Property::new("deep", r.deep.to_string()));
        // Seeds of the shard never run (a time budget, Ctrl-C): merged, they are no part of a
        // "no violation" over the whole range.
        case.add_property(Property::new("cut-short", (!r.complete).to_string()));
        // Shrinks the time budget stopped: their files are smaller, not the smallest.
        if r.shrinks_cut > 0 {
            case.add_property(Property::new(
                "shrinks-cut-short",
                r.shrinks_cut.to_string(),
            ));
        }
        if let Some(f) = &r.first {
            case.add_property(Property::new("first-failure", f.seed.to_string()));
        }
        suite.add_test_case(case);
    }
    let mut report = Report::new("sincro");
    report.add_test_suite(suite);
    report
        .to_string()
        .expect("a report built in memory serializes")
}

/// The name of the `<testsuite>` of `sincro fuzz`'s JUnit reports.
#[cfg(feature = "cli")]
pub const JUNIT_SUITE: &str = "sincro fuzz";

/// `t` as UTC, in the form JUnit's `timestamp` takes.
#[cfg(feature = "cli")]
fn chrono_time(t: std::time::SystemTime) -> chrono::DateTime<chrono::FixedOffset> {
    let since = t
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or(Duration::ZERO);
    // Whole seconds, UTC (`2026-05-01T12:00:00.000+00:00`).
    chrono::DateTime::from_timestamp(since.as_secs() as i64, 0)
        .unwrap_or_default()
        .fixed_offset()
}

/// JUnit reports of `sincro fuzz` merged into one: what [`merge_junit`] returns.
#[cfg(feature = "cli")]
#[derive(Clone, Debug)]
pub struct MergedReports {
    /// One JUnit report with one testcase per target, its figures added over the inputs.
    pub junit: String,
    /// The merged table and the closing line (`2/2 targets as expected (…)`).
    pub summary: String,
    /// Every target as expected in every input.
    pub as_expected: bool,
}

/// The shards of a matrix missing from the reports: how many, and the first
/// [`MISSING_LISTED_MAX`] of them (`k/n`, in order). A matrix may have more shards than any
/// list could hold (`--shard 1/18446744073709551615` is a valid shard), so they are counted,
/// not enumerated.
#[cfg(feature = "cli")]
#[derive(Debug, Default, PartialEq)]
struct MissingShards {
    count: u64,
    listed: Vec<String>,
}

/// Most missing shards named in a message or a report.
#[cfg(feature = "cli")]
const MISSING_LISTED_MAX: usize = 10;

#[cfg(feature = "cli")]
impl MissingShards {
    fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// `2/4, 3/4` or `2/9000, 3/9000, … and 8,977 more`, with `sep` between names.
    fn describe(&self, sep: &str) -> String {
        let mut s = self.listed.join(sep);
        let more = self.count - self.listed.len() as u64;
        if more > 0 {
            s.push_str(&format!("{sep}and {more} more"));
        }
        s
    }

    fn plural(&self) -> (&'static str, &'static str) {
        if self.count == 1 {
            ("", "is")
        } else {
            ("s", "are")
        }
    }
}

/// The shards missing from the reports' parsed `shard` properties (`shards`: (k, n) -> the
/// file that holds it). Reports of different shardings (`1/2` and `1/3`) cannot be merged: an
/// error names them.
#[cfg(feature = "cli")]
fn missing_shards(
    shards: &std::collections::BTreeMap<(u64, u64), String>,
) -> Result<MissingShards, String> {
    let mut n_of: Option<(u64, &str)> = None;
    let mut present = std::collections::BTreeSet::new();
    for (&(k, n), file) in shards {
        match n_of {
            Some((m, other)) if m != n => {
                return Err(format!(
                    "{other} and {file} are shards of different campaigns (`--shard K/{m}` \
                     and `--shard K/{n}`): merge the shards of one matrix"
                ))
            }
            _ => n_of = Some((n, file)),
        }
        present.insert(k);
    }
    let Some((n, _)) = n_of else {
        return Ok(MissingShards::default());
    };
    // Each k in 1..=n is a distinct shard; `present` holds distinct ones of them.
    let count = n - present.len() as u64;
    // At most |present| + MISSING_LISTED_MAX values of k are looked at.
    let listed = (1..=n)
        .filter(|k| !present.contains(k))
        .take(MISSING_LISTED_MAX)
        .map(|k| format!("{k}/{n}"))
        .collect();
    Ok(MissingShards { count, listed })
}

/// `seeds [0, 20)` or `seeds [0, 20) beyond the model`: a report's campaign as
/// [`merge_junit`] compares them (its range without the shard, and `beyond-model`).
#[cfg(feature = "cli")]
/// `a` described against `b`: its range, and its model and its generation where they differ.
fn describe_campaign(
    (range, beyond, generation): &(String, String, String),
    b: &(String, String, String),
) -> String {
    let mut s = range.clone();
    if *beyond != b.1 {
        s.push_str(if beyond == "true" {
            " beyond the model"
        } else {
            " inside the model"
        });
    }
    if *generation != b.2 {
        s.push_str(&match generation.as_str() {
            "" => ", generation not recorded".to_string(),
            g => format!(", {g}"),
        });
    }
    s
}

/// `(input, message, type, text)` of a target not as expected in one merged report.
#[cfg(feature = "cli")]
type InputFailure = (String, String, String, String);

/// One target's figures over the merged reports.
#[cfg(feature = "cli")]
#[derive(Default)]
struct MergedTarget {
    algorithm: String,
    variant: String,
    seeds: u64,
    runs: u64,
    failures: u64,
    buggy: bool,
    /// A deep bug (`Some` when the reports say: those of stop 46 on).
    deep: Option<bool>,
    first: Option<u64>,
    time: Duration,
    /// The inputs that ran only part of their seeds of it (`cut-short`).
    cut_short: Vec<String>,
    /// The inputs that give it a first failure, and the inputs that list it.
    caught_in: usize,
    listed_in: usize,
    /// Each input where the outcome was not as expected.
    failed: Vec<InputFailure>,
    out: Vec<String>,
}

/// Whether seed `f` is one a report's `range` (as [`describe_range`] writes it) and `shard`
/// run: in the range, and the shard's. A range in another form is taken as holding it.
#[cfg(feature = "cli")]
fn shard_runs(range: &str, shard: Shard, f: u64) -> bool {
    let Some(seeds) = range.strip_prefix("seeds ") else {
        return true;
    };
    let (start, in_range) = if let Some(rest) = seeds.strip_prefix('[') {
        let Some((a, b)) = rest.split_once(", ") else {
            return true;
        };
        let end_text: String = b.chars().take_while(char::is_ascii_digit).collect();
        let inclusive = b[end_text.len()..].starts_with(']');
        let (Ok(start), Ok(end)) = (a.parse::<u64>(), end_text.parse::<u64>()) else {
            return true;
        };
        (start, f >= start && (f < end || (inclusive && f == end)))
    } else {
        let Some((a, _)) = seeds.split_once("..") else {
            return true;
        };
        let Ok(start) = a.parse::<u64>() else {
            return true;
        };
        (start, f >= start)
    };
    in_range && (f - start) % shard.n == shard.k - 1
}

/// The first seed of a report's `range` (as [`describe_range`] writes it); `None` for a
/// range in another form.
#[cfg(feature = "cli")]
fn range_start(range: &str) -> Option<u64> {
    let seeds = range.strip_prefix("seeds ")?;
    let first = match seeds.strip_prefix('[') {
        Some(rest) => rest.split_once(", ")?.0,
        None => seeds.split_once("..")?.0,
    };
    first.parse().ok()
}

/// How many seeds a report's `range` (as [`describe_range`] writes it: `seeds [a, b)`,
/// `seeds [a, b]`, `seeds a..` for a time budget, which the last seed bounds) gives `shard`
/// at most; `None` for a range in another form.
#[cfg(feature = "cli")]
fn shard_seed_count(range: &str, shard: Shard) -> Option<u64> {
    // `seeds a..`: bounded by a time budget, and by the last seed, 2^64 - 1.
    if let Some(start) = range
        .strip_prefix("seeds ")
        .and_then(|r| r.split_once(".."))
        .filter(|(a, _)| !a.starts_with('['))
        .and_then(|(a, _)| a.parse::<u64>().ok())
    {
        return Some(shard.count((u64::MAX - start).saturating_add(1)));
    }
    let rest = range.strip_prefix("seeds [")?;
    let (a, b) = rest.split_once(", ")?;
    let end_text: String = b.chars().take_while(char::is_ascii_digit).collect();
    let inclusive = b[end_text.len()..].starts_with(']');
    let (start, end) = (a.parse::<u64>().ok()?, end_text.parse::<u64>().ok()?);
    let len = end.checked_sub(start)?.checked_add(u64::from(inclusive))?;
    Some(shard.count(len))
}

/// Merges the JUnit reports of `sincro fuzz` runs (`(name, xml)`: typically the shards of
/// one campaign, `--shard 1/N` … `N/N`) into one: per target (algorithm, variant) the seeds,
/// runs and failures are added up, the first failing seed is the smallest, and the target is
/// as expected only when it was in every input. An input that is not such a report, a shard
/// given twice, shards of different matrices, or a shard of the matrix missing (unless
/// `partial`: then the summary and the report's `missing-shards` property say which) is an
/// error naming it.
#[cfg(feature = "cli")]
pub fn merge_junit(inputs: &[(String, String)], partial: bool) -> Result<MergedReports, String> {
    use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};
    use std::collections::BTreeMap;
    if inputs.is_empty() {
        return Err("no report to merge".into());
    }
    let mut targets: Vec<MergedTarget> = Vec::new();
    let mut index: BTreeMap<(String, String), usize> = BTreeMap::new();
    let (mut runs, mut interrupted, mut time) = (0u64, false, Duration::ZERO);
    let mut shards: BTreeMap<(u64, u64), String> = BTreeMap::new();
    let mut hosts: Vec<String> = Vec::new();
    let mut ranges: Vec<String> = Vec::new();
    let mut first_campaign: Option<((String, String, String), String)> = None;
    let mut target_sets: Vec<(String, BTreeSet<(String, String)>)> = Vec::new();
    let mut started = None;
    let too_long = |name: &str| {
        format!(
            "{name}: its `time` values add up past the longest duration that can be held: \
             not a report `sincro fuzz --junit` wrote"
        )
    };
    for (name, xml) in inputs {
        let report = Report::deserialize_from_str(xml)
            .map_err(|e| format!("{name}: not a JUnit report: {e}"))?;
        let not_ours = || format!("{name}: not a JUnit report of `sincro fuzz --junit`");
        let [suite] = report.test_suites.as_slice() else {
            return Err(not_ours());
        };
        if suite.name.as_str() != JUNIT_SUITE {
            return Err(not_ours());
        }
        // A property given twice would be read as its first: refused (see `once`).
        let prop = |props: &[Property], key: &str| {
            props
                .iter()
                .find(|p| p.name.as_str() == key)
                .map(|p| p.value.as_str().to_string())
        };
        let once = |props: &[Property], what: &str| -> Result<(), String> {
            let mut seen = std::collections::BTreeSet::new();
            match props.iter().find(|p| !seen.insert(p.name.as_str())) {
                Some(p) => Err(format!(
                    "{name}: {what} has the property `{}` twice: which one counts?",
                    p.name.as_str()
                )),
                None => Ok(()),
            }
        };
        let add = |sum: &mut u64, n: u64, key: &str| -> Result<(), String> {
            // The sum so far may be what overflows it (a huge count in an earlier report).
            *sum = sum.checked_add(n).ok_or_else(|| {
                // The sum may be this report's own (its suite's runs, its targets' runs, its
                // earlier testcases), not only the reports before it (stop 74's probe).
                format!(
                    "{name}: `{key}` = {n} makes the merged count overflow: the counts before \
                     it, in this report or the ones before, add up to {sum} (one of them is a \
                     count no campaign makes)"
                )
            })?;
            Ok(())
        };
        let number = |props: &[Property], key: &str| -> Result<u64, String> {
            prop(props, key)
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("{name}: a property `{key}` is missing or not a number"))
        };
        once(&suite.properties, "the test suite")?;
        // A merged report has no shard to check against the others: merged again, its shards
        // counted twice, a partial merge passed for whole, and reports of different
        // campaigns mixed, all with exit 0 (stop 58's probe).
        if prop(&suite.properties, "merged").is_some() {
            return Err(format!(
                "{name} is itself a merged report (merge-reports wrote it): it names no shard, \
                 so a shard in it twice or missing could not be told; merge the shards' own \
                 reports, all in one call"
            ));
        }
        // Compared as parsed: ` 1/3` and `01/3` are shard 1/3 too.
        // Required: a report without it was taken for shard 1/1 and never counted among the
        // shards, so a copy of a shard with the property removed counted its runs twice.
        let shard: Shard = prop(&suite.properties, "shard")
            .ok_or_else(|| {
                format!(
                    "{name} names no shard (property `shard`), which every report `sincro fuzz \
                     --junit` writes (1/1 when not sharded): a shard given twice or missing \
                     could not be told"
                )
            })?
            .parse()
            .map_err(|e| format!("{name}: property `shard`: {e}"))?;
        if let Some(other) = shards.insert((shard.k, shard.n), name.clone()) {
            return Err(format!(
                "shard {shard} is given twice ({other} and {name}): its runs would count twice"
            ));
        }
        let suite_runs = number(&suite.properties, "runs")?;
        add(&mut runs, suite_runs, "runs")?;
        let mut case_runs = 0u64;
        let this_interrupted = match prop(&suite.properties, "interrupted").as_deref() {
            Some("true") => true,
            Some("false") | None => false,
            Some(other) => {
                return Err(format!(
                    "{name}: `interrupted` = {other:?}: expected true or false"
                ))
            }
        };
        interrupted |= this_interrupted;
        let range = prop(&suite.properties, "range").ok_or_else(not_ours)?;
        let range_text = range.clone();
        // The shards of one matrix cover one seed range, inside or beyond the model alike.
        let campaign = (
            range
                .split(", shard")
                .next()
                .unwrap_or_default()
                .to_string(),
            // Absent (an older report) is inside the model; anything else is no report of ours.
            match prop(&suite.properties, "beyond-model").as_deref() {
                Some("true") => "true".to_string(),
                Some("false") | None => "false".to_string(),
                Some(other) => {
                    return Err(format!(
                        "{name}: `beyond-model` = {other:?}: expected true or false"
                    ))
                }
            },
            // and with one generation (strategy, nodes, phase, engine, guidance): shards that
            // differ there add up to no campaign that ran
            prop(&suite.properties, "generation").unwrap_or_default(),
        );
        let beyond_here = campaign.1 == "true";
        match &first_campaign {
            Some((c, other)) if *c != campaign => {
                return Err(format!(
                    "{other} and {name} are reports of different campaigns ({} and {}): \
                     merge the shards of one matrix",
                    describe_campaign(c, &campaign),
                    describe_campaign(&campaign, c)
                ))
            }
            Some(_) => {}
            None => first_campaign = Some((campaign, name.clone())),
        }
        ranges.push(range);
        // a set: 370,000 test cases compared each with every earlier one took minutes
        let mut these: std::collections::BTreeSet<(String, String)> =
            std::collections::BTreeSet::new();
        time = time
            .checked_add(suite.time.unwrap_or_default())
            .ok_or_else(|| too_long(name))?;
        started = match (started, suite.timestamp) {
            (Some(a), Some(b)) => Some(std::cmp::min(a, b)),
            (a, b) => a.or(b),
        };
        if let Some(h) = suite.extra.get("hostname") {
            if !hosts.iter().any(|x| x == h.as_str()) {
                hosts.push(h.as_str().to_string());
            }
        }
        for case in &suite.test_cases {
            let classname = case.classname.as_ref().ok_or_else(not_ours)?.to_string();
            // Names are printed in the merged table: a line break or an escape in one could
            // print a false closing line (stop 72's probe); `sincro fuzz` writes none.
            if let Some(bad) = [classname.as_str(), case.name.as_str()]
                .into_iter()
                .find(|n| n.chars().any(char::is_control))
            {
                return Err(format!(
                    "{name}: the target name {bad:?} holds a control character: a report \
                     `sincro fuzz` wrote never does"
                ));
            }
            let key = (classname.clone(), case.name.to_string());
            if these.contains(&key) {
                return Err(format!(
                    "{name}: {classname} / {} is in it twice: its seeds would count twice",
                    key.1
                ));
            }
            once(&case.properties, &format!("{classname} / {}", key.1))?;
            let (seeds, failures) = (
                number(&case.properties, "seeds")?,
                number(&case.properties, "failures")?,
            );
            if let Some(most) = shard_seed_count(&range_text, shard).filter(|&m| seeds > m) {
                return Err(format!(
                    "{name}: {classname} / {} has {seeds} seeds where its range ({range_text}) \
                     gives its shard {most}: a report `sincro fuzz` wrote never does",
                    key.1
                ));
            }
            if failures > seeds {
                return Err(format!(
                    "{name}: {classname} / {} has {failures} failures in {seeds} seeds: a \
                     report `sincro fuzz` wrote never does",
                    key.1
                ));
            }
            these.insert(key.clone());
            let i = *index.entry(key).or_insert_with(|| {
                targets.push(MergedTarget {
                    algorithm: classname,
                    variant: case.name.to_string(),
                    ..MergedTarget::default()
                });
                targets.len() - 1
            });
            let t = &mut targets[i];
            let flag = |key: &str| -> Result<Option<bool>, String> {
                match prop(&case.properties, key).as_deref() {
                    None => Ok(None),
                    Some("true") => Ok(Some(true)),
                    Some("false") => Ok(Some(false)),
                    Some(other) => Err(format!(
                        "{name}: {} / {}: `{key}` = {other:?}: expected true or false",
                        t.algorithm, t.variant
                    )),
                }
            };
            let buggy = flag("buggy")?.unwrap_or(false);
            let deep_flag = flag("deep")?;
            // Read as strictly as the other flags: a shard cut short is never merged as held.
            let cut_short = flag("cut-short")?.unwrap_or(false);
            // A flag of the variant's (`a buggy variant`, `a deep bug`) that another report
            // of the same target contradicts.
            let differs = |what: &str, here: bool| {
                format!(
                    "{name}: {} / {} is{} {what} here and{} in another report: the reports \
                     are of different builds; merge the shards of one matrix",
                    t.algorithm,
                    t.variant,
                    if here { "" } else { " not" },
                    if here { " not" } else { "" }
                )
            };
            if t.listed_in > 0 && t.buggy != buggy {
                return Err(differs("a buggy variant", buggy));
            }
            t.buggy = buggy;
            // A correct variant that failed inside its model is never a success.
            if !buggy
                && failures > 0
                && !beyond_here
                && matches!(case.status, TestCaseStatus::Success { .. })
            {
                return Err(format!(
                    "{name}: {} / {} passes with {failures} failures: a report `sincro fuzz` \
                     wrote never does",
                    t.algorithm, t.variant
                ));
            }
            if let (Some(deep), Some(before)) = (deep_flag, t.deep.filter(|_| t.listed_in > 0)) {
                if deep != before {
                    return Err(differs("a deep bug", deep));
                }
            }
            let target_runs = number(&case.properties, "runs")?;
            // Every seed judged is a run (a determinism check runs each twice).
            if target_runs < seeds {
                return Err(format!(
                    "{name}: {} / {} has {seeds} seeds in {target_runs} runs: a report \
                     `sincro fuzz` wrote never does",
                    t.algorithm, t.variant
                ));
            }
            add(&mut case_runs, target_runs, "runs")?;
            add(&mut t.seeds, seeds, "seeds")?;
            add(&mut t.runs, target_runs, "runs")?;
            add(&mut t.failures, failures, "failures")?;
            if let Some(deep) = deep_flag {
                t.deep = Some(t.deep.unwrap_or(false) | deep);
            }
            if let Some(f) = prop(&case.properties, "first-failure") {
                let f: u64 = f.parse().map_err(|_| not_ours())?;
                if failures == 0 {
                    return Err(format!(
                        "{name}: {} / {} fails first at seed {f} with 0 failures: a report \
                         `sincro fuzz` wrote never does",
                        t.algorithm, t.variant
                    ));
                }
                // A seed this report's shard never ran is no failure of its campaign.
                if !shard_runs(&range_text, shard, f) {
                    return Err(format!(
                        "{name}: {} / {} fails first at seed {f}, which its range ({range_text}) \
                         does not hold: a report `sincro fuzz` wrote never does",
                        t.algorithm, t.variant
                    ));
                }
                // Nor one past the seeds it says it ran (seeds are taken in order; a run cut
                // short may have left earlier ones unfinished).
                if let Some(j) = range_start(&range_text)
                    .and_then(|start| f.checked_sub(start))
                    .map(|d| d / shard.n)
                    .filter(|&j| j >= seeds && !cut_short)
                {
                    return Err(format!(
                        "{name}: {} / {} fails first at seed {f}, its shard's seed number {}, \
                         but it ran {seeds}: a report `sincro fuzz` wrote never does",
                        t.algorithm,
                        t.variant,
                        j.saturating_add(1)
                    ));
                }
                t.first = Some(t.first.map_or(f, |g| g.min(f)));
                t.caught_in += 1;
            }
            t.listed_in += 1;
            t.time = t
                .time
                .checked_add(case.time.unwrap_or_default())
                .ok_or_else(|| too_long(name))?;
            if cut_short {
                t.cut_short.push(name.clone());
            }
            // A target a Ctrl-C cut short is no pass, in the merged JUnit either (a report
            // written before stop 53 marked it a success).
            let caught = prop(&case.properties, "first-failure").is_some();
            if cut_short
                && this_interrupted
                && !caught
                && matches!(case.status, TestCaseStatus::Success { .. })
            {
                t.failed.push((
                    name.clone(),
                    "INTERRUPTED: not every seed of this target ran".into(),
                    "interrupted".into(),
                    String::new(),
                ));
            }
            if let Some(o) = &case.system_out {
                t.out.push(format!("[{name}] {}", o.as_str()));
            }
            if let TestCaseStatus::NonSuccess {
                message,
                ty,
                description,
                ..
            } = &case.status
            {
                let text = |x: &Option<quick_junit::XmlString>| {
                    x.as_ref().map_or(String::new(), |x| x.to_string())
                };
                t.failed
                    .push((name.clone(), text(message), text(ty), text(description)));
            }
        }
        if case_runs != suite_runs {
            return Err(format!(
                "{name}: the suite counts {suite_runs} runs and its targets {case_runs}: a \
                 report `sincro fuzz` wrote never does"
            ));
        }
        target_sets.push((name.clone(), these));
    }
    // Every shard of a matrix runs every target (the shard splits the seeds): a target one
    // report lacks would be merged as if its seeds had all run.
    for (name, these) in &target_sets {
        if let Some((alg, variant)) = index.keys().find(|k| !these.contains(k)) {
            let holder = target_sets
                .iter()
                .find(|(_, t)| t.contains(&(alg.clone(), variant.clone())))
                .map_or("another report", |(n, _)| n.as_str());
            return Err(format!(
                "{alg} / {variant} is in {holder} but not in {name}: the reports are of \
                 different campaigns; merge the shards of one matrix"
            ));
        }
    }
    // Each shard judged its own seeds: a bug no shard caught is as expected in each (a deep
    // bug needs more seeds than a shard has), but not in the merged campaign when its seeds
    // add up to what the bug requires (every seed for a shallow bug, DEEP_BUG_SEEDS for a
    // deep one). Reports without the `deep` property (before stop 46) are taken as they say.
    let beyond = first_campaign
        .as_ref()
        .is_some_and(|((_, b, _), _)| b.as_str() == "true");
    for t in targets.iter_mut() {
        let (Some(deep), false, None, true) = (t.deep, beyond, t.first, t.buggy) else {
            continue;
        };
        let required = if deep {
            crate::algorithms::DEEP_BUG_SEEDS
        } else {
            1
        };
        if t.failed.is_empty() && t.seeds >= required {
            let message = format!(
                "UNEXPECTED: the {}bug was not caught in the {} seeds of the merged shards \
                 (required from {required})",
                if deep { "deep " } else { "" },
                t.seeds
            );
            t.failed.push((
                "merged".into(),
                message.clone(),
                "not_caught".into(),
                message,
            ));
        }
    }
    let missing = missing_shards(&shards)?;
    if !missing.is_empty() && !partial {
        let (s, are) = missing.plural();
        return Err(format!(
            "shard{s} {} {are} missing: the merged report would cover part of the campaign and \
             call it whole (a matrix job that failed or did not upload its report?); merge \
             them all, or pass --partial to merge what is there",
            missing.describe(", "),
        ));
    }
    // The merged report.
    let mut suite = TestSuite::new(JUNIT_SUITE);
    if let Some(t) = started {
        suite.set_timestamp(t);
    }
    suite.set_time(time);
    let host = if hosts.is_empty() {
        "unknown".to_string()
    } else {
        hosts.join(",")
    };
    suite.extra.insert("hostname".into(), host.into());
    let names: Vec<&str> = inputs.iter().map(|(n, _)| n.as_str()).collect();
    // The campaign every input shares (checked above), as each shard's report says it.
    let (beyond_model, generation) = first_campaign
        .as_ref()
        .map(|((_, b, g), _)| (b.clone(), g.clone()))
        .unwrap_or_default();
    suite.add_properties([
        Property::new("range", ranges.join(" + ")),
        // a JSON array: a name with a space in it is one name
        Property::new(
            "merged",
            serde_json::to_string(&names).expect("strings serialize"),
        ),
        Property::new("beyond-model", beyond_model),
        Property::new("generation", generation),
        Property::new("runs", runs.to_string()),
        Property::new("interrupted", interrupted.to_string()),
    ]);
    if !missing.is_empty() {
        suite.add_property(Property::new("missing-shards", missing.describe(" ")));
    }
    let mut grid = crate::cli::grid::Grid::new(&["target", ">seeds", ">fail", ">first", "outcome"]);
    let mut loud = String::new();
    // A correct variant cut short by a time budget in some report held over fewer seeds
    // than asked: counted apart, as `fuzz`'s closing line counts it (the merge called it
    // held, stop 73's probe).
    let (mut caught, mut held, mut held_cut, mut unreached) = (0, 0, 0, 0);
    for t in &targets {
        let ok = t.failed.is_empty();
        let status = if ok {
            TestCaseStatus::success()
        } else {
            let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
            let join = |f: &dyn Fn(&InputFailure) -> String, by: &str| {
                t.failed.iter().map(f).collect::<Vec<_>>().join(by)
            };
            // One line: an XML reader turns a newline in an attribute into a space.
            let message = |(n, m, _, _): &InputFailure| format!("{n}: {}", m.replace('\n', " "));
            st.set_message(join(&message, "; "))
                .set_type(t.failed[0].2.clone())
                .set_description(join(&|(n, _, _, d)| format!("[{n}] {d}"), "\n"));
            st
        };
        let mut case = TestCase::new(t.variant.clone(), status);
        case.set_classname(t.algorithm.clone()).set_time(t.time);
        if !t.out.is_empty() {
            case.set_system_out(t.out.join("\n"));
        }
        case.add_property(Property::new("seeds", t.seeds.to_string()));
        case.add_property(Property::new("runs", t.runs.to_string()));
        case.add_property(Property::new("failures", t.failures.to_string()));
        case.add_property(Property::new("buggy", t.buggy.to_string()));
        case.add_property(Property::new(
            "cut-short",
            (!t.cut_short.is_empty()).to_string(),
        ));
        if let Some(f) = t.first {
            case.add_property(Property::new("first-failure", f.to_string()));
        }
        suite.add_test_case(case);
        let outcome = match (ok, t.buggy, t.first) {
            (true, true, Some(_)) => {
                caught += 1;
                if t.caught_in == t.listed_in {
                    "caught in every report".to_string()
                } else {
                    format!("caught (in {} of {} reports)", t.caught_in, t.listed_in)
                }
            }
            (true, false, None) if t.cut_short.is_empty() => {
                held += 1;
                "no violation".to_string()
            }
            (true, false, None) => {
                held_cut += 1;
                format!(
                    "no violation in {} seeds (cut short in {})",
                    t.seeds,
                    t.cut_short.join(", ")
                )
            }
            // counted as `fuzz` counts it (the closing line left it out: 17 caught and 24
            // held of 42 as expected, stop 65's probe)
            (true, true, None) if t.deep == Some(true) => {
                unreached += 1;
                format!("deep bug, not reached in {} seeds", t.seeds)
            }
            (true, _, _) => "as expected".to_string(),
            (false, _, _) => {
                for (n, m, _, _) in &t.failed {
                    let _ = writeln!(
                        loud,
                        "NOT AS EXPECTED: {} / {} ({n}): {m}",
                        t.algorithm, t.variant
                    );
                }
                if t.failed.iter().any(|f| f.0 == "merged") {
                    "NOT AS EXPECTED: not caught in the merged seeds".to_string()
                } else {
                    format!("NOT AS EXPECTED in {} of {}", t.failed.len(), inputs.len())
                }
            }
        };
        grid.row([
            format!(
                "{} / {}{}",
                t.algorithm,
                t.variant,
                if t.buggy { " [bug]" } else { "" }
            ),
            t.seeds.to_string(),
            t.failures.to_string(),
            t.first.map_or("-".into(), |f| f.to_string()),
            outcome,
        ]);
    }
    let mut report = Report::new("sincro");
    report.add_test_suite(suite);
    let expected = targets.iter().filter(|t| t.failed.is_empty()).count();
    let mut summary = format!(
        "merged {} report{}:\n",
        inputs.len(),
        if inputs.len() == 1 { "" } else { "s" },
    );
    for n in &names {
        let _ = writeln!(summary, "  {n}");
    }
    summary.push_str(&grid.text());
    if !loud.is_empty() {
        summary.push('\n');
        summary.push_str(&loud);
    }
    let _ = writeln!(
        summary,
        "\n{expected}/{} targets as expected ({caught} {} caught, {}{held} correct {} held{}); {runs} runs{}",
        targets.len(),
        if caught == 1 { "bug" } else { "bugs" },
        match unreached {
            0 => String::new(),
            n => format!("{n} deep {} not reached, ", if n == 1 { "bug" } else { "bugs" }),
        },
        if held == 1 { "variant" } else { "variants" },
        match held_cut {
            0 => String::new(),
            k => format!(", {k} correct cut short without a violation"),
        },
        if interrupted {
            "; INCOMPLETE: an input's campaign was interrupted (Ctrl-C, SIGTERM or SIGHUP), so its seeds were not all run (exit 1)"
        } else {
            ""
        }
    );
    if !missing.is_empty() {
        let _ = writeln!(
            summary,
            "PARTIAL: shard{} {} not merged (--partial): these figures cover part of the campaign",
            missing.plural().0,
            missing.describe(", ")
        );
    }
    Ok(MergedReports {
        junit: report
            .to_string()
            .expect("a report built in memory serializes"),
        summary,
        as_expected: expected == targets.len() && !interrupted,
    })
}

#[cfg(test)]
mod stall_tests {
    use super::{noticed, StallWatch, LONG_RUN};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::{Duration, Instant};

    /// A single run that goes on past its time is named once while it runs; one that returns
    /// first never is, and returns at once, its value unchanged.
    #[test]
    fn a_single_run_is_named_only_once_it_has_gone_on_past_its_time() {
        let said = AtomicBool::new(false);
        let v = noticed(
            Duration::from_millis(10),
            || said.store(true, Ordering::SeqCst),
            || {
                // until the watcher has spoken: a run that has not returned
                while !said.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(1));
                }
                7
            },
        );
        assert_eq!(v, 7);
        let quiet = AtomicBool::new(false);
        let t0 = Instant::now();
        assert_eq!(
            noticed(LONG_RUN, || quiet.store(true, Ordering::SeqCst), || 8),
            8
        );
        assert!(!quiet.load(Ordering::SeqCst));
        assert!(
            t0.elapsed() < LONG_RUN,
            "it does not wait for the watch's time"
        );
    }

    /// A worker on one run for `LONG_RUN` is named once; a new run starts the clock again;
    /// an idle worker, or one whose runs keep returning, never is.
    #[test]
    fn a_run_that_does_not_return_is_named_once() {
        let t0 = Instant::now();
        let mut w = StallWatch::default();
        let at = |s: u64| t0 + Duration::from_secs(s);
        assert!(w.look(&[8, 0, 3], at(0)).is_empty());
        assert!(w.look(&[8, 0, 4], at(LONG_RUN.as_secs() - 1)).is_empty());
        assert_eq!(w.look(&[8, 0, 5], at(LONG_RUN.as_secs())), vec![7]);
        assert!(
            w.look(&[8, 0, 6], at(2 * LONG_RUN.as_secs())).is_empty(),
            "once"
        );
        // the same worker on its next run: the clock starts again
        assert!(w.look(&[9, 0, 7], at(2 * LONG_RUN.as_secs())).is_empty());
        assert_eq!(w.look(&[9, 0, 7], at(3 * LONG_RUN.as_secs())), vec![8, 6]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The registry's entry for variant `name` of `algorithm`.
    fn variant_of(algorithm: &dyn Algorithm, name: &str) -> VariantInfo {
        algorithm
            .info()
            .variants
            .into_iter()
            .find(|v| v.name == name)
            .unwrap_or_else(|| panic!("no variant {name}"))
    }

    /// Two panics are the same failure where they panic at the same place; without a place,
    /// where their texts agree but for numbers (stop 64: any panic was the same, and a
    /// shrink turned one bug into a division by zero elsewhere).
    #[test]
    fn a_panic_is_the_same_failure_at_the_same_place() {
        let sig = |message: &str| {
            failure_signature(&crate::harness::engine::Outcome {
                verdict: Verdict::Panic {
                    node: 0,
                    t_ns: 0,
                    message: message.into(),
                },
                trace: None,
                stats: Default::default(),
            })
        };
        assert_eq!(
            sig("REAL BUG 3 (at src/a.rs:97)"),
            sig("REAL BUG 4 (at src/a.rs:97)")
        );
        assert_ne!(
            sig("REAL BUG (at src/a.rs:97)"),
            sig("attempt to divide by zero (at src/a.rs:12)")
        );
        assert_eq!(sig("counter overflowed: 3"), sig("counter overflowed: 12"));
        assert_ne!(
            sig("counter overflowed: 3"),
            sig("attempt to divide by zero")
        );
    }

    /// An output file that exists and cannot be replaced is refused before the work starts
    /// (a campaign ran whole, then lost its JUnit report); a path under a file names it.
    #[test]
    fn an_output_that_cannot_be_replaced_is_found_before_the_work() {
        let dir = std::env::temp_dir().join(format!("sincro-probe-out-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("report.xml");
        std::fs::write(&file, "").unwrap();
        probe_output(&file).unwrap();
        let e = probe_output(&file.join("x.xml")).unwrap_err();
        assert!(
            e.contains("is not a directory (the output is written into it)"),
            "{e}"
        );
        // chattr +i makes a file immutable even to root, where the file system supports it
        let immutable = std::process::Command::new("chattr")
            .arg("+i")
            .arg(&file)
            .status()
            .is_ok_and(|s| s.success());
        if immutable {
            let e = probe_output(&file);
            let _ = std::process::Command::new("chattr")
                .arg("-i")
                .arg(&file)
                .status();
            assert!(e.unwrap_err().contains("cannot write"));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_smallest_failing_seed_is_written_past_the_cap_and_the_others_within_it() {
        let cfg = |keep_going| FuzzConfig {
            keep_going,
            max_files: 2,
            ..FuzzConfig::default()
        };
        let (going, first_only) = (cfg(true), cfg(false));
        // (superseded, n, smallest, config) -> written
        let cases = [
            (false, 1, true, &going, true),
            (false, 2, false, &going, true),
            (false, 3, false, &going, false), // past the cap
            (false, 9, true, &going, true),   // past the cap, but the one reported
            (true, 1, false, &first_only, false),
            (false, 5, true, &first_only, true),
        ];
        for (superseded, n, smallest, cfg, written) in cases {
            assert_eq!(
                writes_failure(superseded, n, smallest, cfg),
                written,
                "superseded {superseded}, n {n}, smallest {smallest}, keep_going {}",
                cfg.keep_going
            );
        }
    }

    #[test]
    fn a_seed_range_past_the_last_seed_is_refused_and_one_up_to_it_is_not() {
        assert_eq!(seed_range_error(0, u64::MAX), None, "UNBOUNDED");
        assert_eq!(seed_range_error(u64::MAX, 1), None, "the last seed alone");
        assert_eq!(
            seed_range_error(u64::MAX - 9, 10),
            None,
            "up to the last seed"
        );
        assert_eq!(seed_range_error(u64::MAX, 0), None, "0 is checked apart");
        let e = seed_range_error(u64::MAX - 9, 11).expect("one seed too many");
        assert!(e.contains("at most 10 start there"), "{e}");
        let e = seed_range_error(u64::MAX, u64::MAX - 1).expect("far too many");
        assert!(e.contains("at most 1 start there"), "{e}");
    }

    /// `mutex.centralized`, except that the last seed of the test range replays differently
    /// every second run (one event moved by 1 ns).
    struct Flaky {
        runs: AtomicU64,
    }

    const FLAKY_SEED: u64 = 39;

    impl Algorithm for Flaky {
        fn info(&self) -> crate::algorithms::AlgorithmInfo {
            inner().info()
        }
        fn run(
            &self,
            sc: &Scenario,
            options: RunOptions,
        ) -> Result<crate::harness::engine::Outcome, crate::harness::ScenarioError> {
            let mut out = inner().run(sc, options)?;
            let odd = self.runs.fetch_add(1, Ordering::Relaxed) % 2 == 1;
            if let (true, true, Some(t)) = (sc.seed == FLAKY_SEED, odd, out.trace.as_mut()) {
                t.events_mut().last_mut().expect("a run has events").t_ns += 1;
            }
            Ok(out)
        }
        fn workload(
            &self,
            rng: &mut crate::harness::SimRng,
            nodes: usize,
            active_ms: u64,
        ) -> Vec<crate::harness::WorkloadItem> {
            inner().workload(rng, nodes, active_ms)
        }
        fn liveness_bound_ms(&self, sc: &Scenario) -> u64 {
            inner().liveness_bound_ms(sc)
        }
    }

    fn inner() -> &'static dyn Algorithm {
        crate::algorithms::find("mutex.centralized").expect("registered")
    }

    static FLAKY: Flaky = Flaky {
        runs: AtomicU64::new(0),
    };

    /// A scenario coverage guidance mutated carries the seed of the scenario it came from;
    /// its shrunk file is named after the campaign seed that failed, as its original is, so
    /// two failures mutated from one parent no longer write one file.
    #[test]
    fn a_shrunk_file_is_named_after_the_campaign_seed_not_the_scenarios() {
        let algorithm = crate::algorithms::find("mutex.centralized").expect("built in");
        let variant = variant_of(algorithm, "lease-timeout");
        let target = Target { algorithm, variant };
        let out_dir =
            std::env::temp_dir().join(format!("sincro-shrunk-name-{}", std::process::id()));
        let cfg = FuzzConfig {
            out_dir: out_dir.clone(),
            ..FuzzConfig::default()
        };
        let opts = CampaignOptions::default();
        let run = TargetRun::new(&target, &cfg, &opts);
        // the scenario of seed 3, as if mutated into the failure of campaign seed 44
        let sc = algorithm.generate("lease-timeout", 3, &cfg.gen);
        let shrink = ShrinkOptions {
            max_runs: 1,
            ..ShrinkOptions::default()
        };
        let stop = AtomicBool::new(false);
        let file = run.shrink_failure(
            44,
            &sc,
            "violation:mutual_exclusion",
            &stop,
            &shrink,
            &Live::default(),
        );
        let path = file.path.expect("written");
        assert_eq!(
            path.file_name().and_then(|n| n.to_str()),
            Some("mutex.centralized.lease-timeout.seed44.shrunk.json")
        );
        let _ = std::fs::remove_dir_all(&out_dir);
    }

    /// A failure of `mutex.token-ring / no-generation` that the correct variant shares (the
    /// delay spikes the bug needs are outside the model, where the correct variant may have
    /// two tokens for a while too) is no catch: the campaign counts it apart and goes on;
    /// one the correct variant does not share is the catch, and shrinks to a scenario the
    /// correct variant does not fail that way either. A variant whose bug needs nothing
    /// outside the model is never compared.
    #[test]
    fn a_failure_the_correct_variant_shares_is_no_catch() {
        let alg = crate::algorithms::find("mutex.token-ring").expect("built in");
        let gen = GenOptions::default();
        let correct_label = |sc: &Scenario| {
            let mut c = sc.clone();
            c.variant = "correct".into();
            alg.run(&c, QUICK).expect("runs").verdict.label()
        };
        let (mut shared, mut own) = (None, None);
        for seed in 0..300 {
            let sc = alg.generate("no-generation", seed, &gen);
            let out = alg.run(&sc, QUICK).expect("runs");
            if !matches!(out.verdict, Verdict::Violation(_)) {
                continue;
            }
            let label = out.verdict.label();
            let same = correct_label(&sc) == label;
            assert_eq!(shared_by_correct(alg, &sc, &label), same, "seed {seed}");
            if same {
                shared.get_or_insert((sc, label));
            } else {
                own.get_or_insert((sc, label));
            }
            if shared.is_some() && own.is_some() {
                break;
            }
        }
        let (shared, _) = shared.expect("a failure the correct variant shares");
        let (own, label) = own.expect("a failure of the bug alone");
        let variant = variant_of(alg, "no-generation");
        let target = Target {
            algorithm: alg,
            variant,
        };
        let cfg = FuzzConfig {
            coverage: false,
            ..FuzzConfig::default()
        };
        let opts = CampaignOptions::default();
        let run = TargetRun::new(&target, &cfg, &opts);
        assert!(run.run_scenario(1, shared, None).is_ok(), "not a catch");
        assert_eq!(run.shared_with_correct.load(Ordering::Relaxed), 1);
        let caught = run
            .run_scenario(2, own.clone(), None)
            .expect_err("the catch");
        assert_eq!(caught.1.label, label);
        let stop = AtomicBool::new(false);
        let shrunk = shrink_scenario(
            alg,
            &own,
            &label,
            &ShrinkOptions {
                max_runs: 40,
                ..ShrinkOptions::default()
            },
            &mut || false,
            Some(&stop),
            None,
        );
        assert!(shrunk.verified);
        assert_ne!(correct_label(&shrunk.scenario), label);
        // Inside the model: never compared (the correct variant's own failure would be a
        // bug of the correct variant, reported as such).
        let central = crate::algorithms::find("mutex.centralized").expect("built in");
        let sc = central.generate("lease-timeout", 0, &gen);
        assert!(!shared_by_correct(
            central,
            &sc,
            "violation:mutual_exclusion"
        ));
    }

    #[test]
    fn guided_runs_record_type_words_unless_a_goal_reads_more() {
        use crate::algorithms::coverage::Goal;
        use crate::harness::trace::{type_word, EventKind};
        let algorithm = crate::algorithms::find("mutex.ricart-agrawala").expect("built in");
        let variant = variant_of(algorithm, "correct");
        let target = Target { algorithm, variant };
        let cfg = FuzzConfig {
            coverage: true,
            ..FuzzConfig::default()
        };
        let opts = CampaignOptions::default();
        // The texts of the messages a guided run of seed 3 records.
        let texts = |run: &TargetRun| {
            let sc = algorithm.generate("correct", 3, &cfg.gen);
            let mut texts = Vec::new();
            let mut on_trace = |t: &Trace| {
                texts.extend(t.events().iter().filter_map(|e| match &e.kind {
                    EventKind::Send { msg, .. } => Some(msg.to_string()),
                    _ => None,
                }));
            };
            run.run_scenario(3, sc, Some(&mut on_trace))
                .expect("passes");
            texts
        };
        let mut run = TargetRun::new(&target, &cfg, &opts);
        let built_in = run.guide.as_ref().expect("guided");
        assert!(!built_in.reads_text(), "the built-in goals read kinds only");
        let words = texts(&run);
        assert!(!words.is_empty());
        assert!(
            words.iter().all(|w| w.as_str() == type_word(w)),
            "type words only: {words:?}"
        );
        run.guide = Some(Guide::new(vec![Goal::new("any", "any run", |_| true)]));
        let full = texts(&run);
        assert_eq!(full.len(), words.len(), "the same run");
        assert!(
            full.iter().any(|f| f.as_str() != type_word(f)),
            "full texts for a goal that may read them: {full:?}"
        );
        for (f, w) in full.iter().zip(&words) {
            assert_eq!(type_word(f), w.as_str());
        }
    }

    #[test]
    fn an_expected_failure_does_not_hide_a_nondeterministic_seed() {
        let variant = variant_of(inner(), "lease-timeout");
        let target = Target {
            algorithm: &FLAKY,
            variant,
        };
        let out_dir = std::env::temp_dir().join(format!("sincro-flaky-{}", std::process::id()));
        let cfg = FuzzConfig {
            seed_start: 0,
            seeds: FLAKY_SEED + 1,
            jobs: 1,
            keep_going: true,
            check_determinism: true,
            gen: GenOptions::default(),
            out_dir: out_dir.clone(),
            max_files: 100,
            coverage: true,
        };
        let opts = CampaignOptions::default();
        let mut run = TargetRun::new(&target, &cfg, &opts);
        run.run(&AtomicBool::new(false), None, &Live::default(), &|_| {});
        let r = run.report();
        let _ = std::fs::remove_dir_all(&out_dir);
        let first = r.first.as_ref().expect("the buggy variant is caught");
        assert!(first.seed < FLAKY_SEED, "caught at seed {}", first.seed);
        assert!(first.label.starts_with("violation:"), "{}", first.label);
        let nd = r.nondeterministic.as_ref().expect("seed 39 is reported");
        assert_eq!(nd.seed, FLAKY_SEED);
        assert!(
            nd.detail.contains("first difference at trace line"),
            "{}",
            nd.detail
        );
        let (ok, text) = outcome(&r, false);
        assert!(!ok && text.contains("NONDETERMINISTIC"), "{text}");
        let campaign = CampaignReport {
            executed: r.executed,
            targets: vec![r],
            wall_s: 0.0,
            interrupted: false,
            budget: None,
            shard: Shard::default(),
            seed_start: 0,
            seeds: FLAKY_SEED + 1,
            beyond_model: false,
            generation: String::new(),
            determinism_checked: true,
        };
        assert_eq!(exit_code(&campaign), crate::exit::NONDETERMINISM);
        let text = summary(&campaign, Rss::default());
        assert!(
            text.contains(
                "determinism: every seed ran twice, traces compared: a mismatch in 1 of 1 target"
            ),
            "{text}"
        );
        assert!(
            text.contains(&format!("seed {FLAKY_SEED}: the same scenario")),
            "{text}"
        );
    }

    /// `mutex.token-ring`, recording the most steps any of its runs took.
    struct Longest {
        steps: AtomicU64,
    }

    impl Algorithm for Longest {
        fn info(&self) -> crate::algorithms::AlgorithmInfo {
            ring().info()
        }
        fn run(
            &self,
            sc: &Scenario,
            options: RunOptions,
        ) -> Result<crate::harness::engine::Outcome, crate::harness::ScenarioError> {
            let out = ring().run(sc, options)?;
            self.steps.fetch_max(out.stats.events, Ordering::Relaxed);
            Ok(out)
        }
        fn workload(
            &self,
            rng: &mut crate::harness::SimRng,
            nodes: usize,
            active_ms: u64,
        ) -> Vec<crate::harness::WorkloadItem> {
            ring().workload(rng, nodes, active_ms)
        }
        fn liveness_bound_ms(&self, sc: &Scenario) -> u64 {
            ring().liveness_bound_ms(sc)
        }
        fn bug_classes(&self, variant: &str) -> Vec<crate::harness::fault::FaultClass> {
            ring().bug_classes(variant)
        }
    }

    fn ring() -> &'static dyn Algorithm {
        crate::algorithms::find("mutex.token-ring").expect("registered")
    }

    /// The shrinker's quick check of a candidate (untraced first, then a trace of type words
    /// only for a violation with the original's label) against its reference: a run with the
    /// whole trace and the signature compared. Generated scenarios of buggy and correct
    /// variants, each judged against the signature of a failing one of its target: some fail
    /// the same way, some with another label, some through other events, some pass.
    #[test]
    fn the_quick_candidate_check_agrees_with_the_traced_signature() {
        let gen = GenOptions::default();
        let (mut same, mut other) = (0, 0);
        for (name, variant) in [
            ("mutex.centralized", "lease-timeout"),
            ("mutex.ricart-agrawala", "no-tiebreak"),
            ("election.bully", "short-timeout"),
            ("order.total", "unordered"),
            ("order.lamport", "no-merge"),
        ] {
            let alg = crate::algorithms::find(name).expect("registered");
            let scenarios: Vec<Scenario> = (0..40)
                .map(|seed| alg.generate(variant, seed, &gen))
                .collect();
            let traced: Vec<String> = scenarios
                .iter()
                .map(|c| {
                    alg.run(c, TRACED)
                        .map_or_else(|e| e.0, |o| failure_signature(&o))
                })
                .collect();
            let Some(want) = traced.iter().find(|s| *s != "pass") else {
                panic!("{name} / {variant}: no failure in 40 seeds");
            };
            let want_label = want.split(' ').next().expect("a label");
            for (c, sig) in scenarios.iter().zip(&traced) {
                let quick = candidate_fails(alg, c, want_label, want);
                assert_eq!(
                    quick,
                    sig == want,
                    "{name} / {variant} seed {}: quick check {quick}, traced signature {sig:?}, \
                     wanted {want:?}",
                    c.seed
                );
                if quick {
                    same += 1;
                } else {
                    other += 1;
                }
            }
        }
        assert!(same >= 5 && other >= 5, "{same} same, {other} other");
    }

    /// [`shrink_scenario`] with the default options, no cap and no stop.
    fn shrink_plainly(alg: &dyn Algorithm, sc: &Scenario, label: &str) -> ShrinkOutcome {
        shrink_scenario(
            alg,
            sc,
            label,
            &ShrinkOptions::default(),
            &mut || false,
            None,
            None,
        )
    }

    /// A shrunk failure shrinks no further when shrunk again: the result is shrunk again
    /// with its own schedule pinned until a round finds nothing smaller (stop 57's probe
    /// shrank a shrunk file further by giving it back).
    #[test]
    fn a_shrunk_failure_is_a_fixpoint() {
        let mut shrunk = 0;
        // (given back, seed 2 of `forward-once` shrank from 12 inputs to 10, and seed 93 of
        // `stale-coordinator` from 1 input to none, before; seed 2 no longer fails since stop
        // 61's input bursts, 3 does; seed 93 no longer fails since stop 74's two faults a
        // pilot, 16 does)
        for (name, variant, seed) in [
            ("deadlock.cmh", "forward-once", 3),
            ("election.ring", "stale-coordinator", 16),
        ] {
            let alg = crate::algorithms::find(name).expect("built in");
            let sc = alg.generate(variant, seed, &GenOptions::default());
            let label = alg.run(&sc, QUICK).expect("it runs").verdict.label();
            assert!(
                label.starts_with("violation:"),
                "{name} / {variant} seed {seed}: {label}"
            );
            let once = shrink_plainly(alg, &sc, &label);
            assert!(once.verified, "{name} / {variant}");
            let twice = shrink_plainly(alg, &once.scenario, &label);
            assert_eq!(
                ScenarioSize::of(&twice.scenario),
                ScenarioSize::of(&once.scenario),
                "{name} / {variant}: shrunk again"
            );
            assert_eq!(
                shrink::noise(&twice.scenario),
                shrink::noise(&once.scenario),
                "{name} / {variant} seed {seed}: the network or clocks shrunk again"
            );
            // nor do its name and description grow (stop 72's probe)
            assert_eq!(twice.scenario.name, once.scenario.name);
            assert!(once.scenario.name.ends_with("-shrunk"));
            let d = &twice.scenario.description;
            assert_eq!(d.matches("shrunk from").count(), 1, "{d}");
            assert!(d.len() <= once.scenario.description.len() + 60, "{d}");
            shrunk += 1;
        }
        assert_eq!(shrunk, 2);
    }

    /// With `keep_schedule` off the shrinker redraws every candidate's delays from the seed:
    /// its result pins no schedule, as all shrinking did before stop 48 (what `table shrink`
    /// measures the kept schedule against); on, the result is never larger.
    #[test]
    fn without_the_kept_schedule_the_result_pins_no_delay() {
        let alg = crate::algorithms::find("election.ring").expect("built in");
        let sc = alg.generate("stale-coordinator", 16, &GenOptions::default());
        let label = alg.run(&sc, QUICK).expect("it runs").verdict.label();
        assert!(label.starts_with("violation:"), "{label}");
        let redrawn = shrink_scenario(
            alg,
            &sc,
            &label,
            &ShrinkOptions {
                keep_schedule: false,
                ..ShrinkOptions::default()
            },
            &mut || false,
            None,
            None,
        );
        assert!(redrawn.verified);
        assert!(
            !matches!(redrawn.scenario.schedule, Schedule::Recorded(_)),
            "{:?}",
            redrawn.scenario.schedule
        );
        // With it on, the same redrawn search runs first and the pinned one can only
        // improve on it: never larger.
        let kept = shrink_plainly(alg, &sc, &label);
        assert!(kept.verified);
        let size = |s: &Scenario| {
            let z = ScenarioSize::of(s);
            (z.faults + z.inputs + z.nodes, z.nodes, z.duration_ms)
        };
        assert!(size(&kept.scenario) <= size(&redrawn.scenario));
    }

    /// A shrunk failure keeps no knob of the network or clocks its bug does not need: a round
    /// of the fixpoint that only turned one off was thrown away (it shrank no count), so this
    /// `fifo-only` failure kept `reorder: 1.0` until shrunk again (stop 73's probe).
    #[test]
    fn a_shrunk_failure_keeps_no_network_knob_a_second_shrink_would_remove() {
        let alg = crate::algorithms::find("order.causal").expect("built in");
        let sc: Scenario = serde_json::from_str(concat!(
            r#"{"name":"order.causal-fifo-only-seed11","description":"generated from seed 11 of"#,
            r#" a campaign (stop 73's probe)","algorithm":"order.causal","variant":"fifo-only","#,
            r#""nodes":4,"seed":11,"duration_ms":1521,"network":{"topology":"complete","latency"#,
            r#"":{"uniform":{"min_ms":4.0,"max_ms":9.0}},"loss":0.2,"duplicate":0.05,"reorder":"#,
            r#"1.0,"links":[]},"faults":[{"at_ms":307,"fault":{"clock_jump":{"node":2,"delta_ms"#,
            r#"":389.0}}},{"at_ms":439,"fault":{"partition_oneway":{"from":[0],"to":[1]}}},{"at"#,
            r#"_ms":457,"fault":{"clock_jump":{"node":3,"delta_ms":70.0}}},{"at_ms":500,"fault""#,
            r#":"heal"},{"at_ms":500,"fault":"heal"},{"at_ms":500,"fault":{"set_links":{"from":"#,
            r#"null,"to":null,"latency":null,"loss":0.0,"duplicate":0.0,"reorder":null}}}],"wor"#,
            r#"kload":[{"at_ms":293,"node":3,"input":{"multicast":{}}},{"at_ms":294,"node":0,"i"#,
            r#"nput":{"multicast":{}}},{"at_ms":321,"node":3,"input":{"multicast":{}}},{"at_ms""#,
            r#":334,"node":1,"input":{"multicast":{}}},{"at_ms":334,"node":0,"input":{"multicas"#,
            r#"t":{}}},{"at_ms":341,"node":3,"input":{"multicast":{}}},{"at_ms":342,"node":2,"i"#,
            r#"nput":{"multicast":{}}},{"at_ms":358,"node":0,"input":{"multicast":{}}},{"at_ms""#,
            r#":362,"node":1,"input":{"multicast":{}}},{"at_ms":364,"node":1,"input":{"multicas"#,
            r#"t":{}}}],"expect":{"violation":"causal_delivery"}}"#,
        ))
        .expect("a scenario");
        let label = alg.run(&sc, QUICK).expect("it runs").verdict.label();
        assert!(label.starts_with("violation:"), "{label}");
        let once = shrink_plainly(alg, &sc, &label);
        assert!(once.verified);
        let twice = shrink_plainly(alg, &once.scenario, &label);
        assert_eq!(
            shrink::noise(&twice.scenario),
            shrink::noise(&once.scenario),
            "{:?} shrunk again to {:?}",
            once.scenario.network,
            twice.scenario.network
        );
        assert_eq!(once.scenario.network.reorder, 0.0);
    }

    /// A deadline passed before the original ran again ends the shrink at once: the original
    /// comes back, cut short, no candidate run (the runs of the original were not bounded).
    #[test]
    fn a_deadline_bounds_the_runs_of_the_original_too() {
        let alg = crate::algorithms::find("mutex.centralized").expect("built in");
        let sc = Scenario::load(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/corpus/mutex/centralized-lease-timeout-overlap.json"
        )))
        .expect("a corpus scenario");
        let label = alg.run(&sc, QUICK).expect("it runs").verdict.label();
        assert!(label.starts_with("violation:"), "{label}");
        let stop = AtomicBool::new(false);
        let out = shrink_scenario(
            alg,
            &sc,
            &label,
            &ShrinkOptions {
                max_runs: 100,
                ..ShrinkOptions::default()
            },
            &mut || false,
            Some(&stop),
            Some(Instant::now()),
        );
        assert_eq!((out.runs, out.verified, out.interrupted), (0, false, true));
        assert!(
            out.scenario
                .description
                .contains("cut short before the original ran again"),
            "{}",
            out.scenario.description
        );
        assert_eq!(out.irreproducible, None);
    }

    /// A run that ended before its election could be judged is not shrunk: shrinking it made a
    /// one-node, 5 ms scenario that judges nothing. The original comes back, no candidate run.
    #[test]
    fn an_unjudged_run_is_not_shrunk() {
        let sc = Scenario::from_json(
            r#"{"algorithm": "election.bully", "nodes": 8, "seed": 1, "duration_ms": 12,
                "faults": [{"at_ms": 5, "fault": {"crash": {"node": 7}}}],
                "workload": [{"at_ms": 10, "node": 4, "input": "probe"}]}"#,
        )
        .expect("valid");
        let alg = crate::algorithms::find("election.bully").expect("built in");
        let label = alg.run(&sc, QUICK).expect("it runs").verdict.label();
        assert_eq!(label, "unjudged:leader_agreement");
        let why = shrinkable(&label).expect_err("refused");
        assert!(why.contains("duration_ms"), "{why}");
        assert_eq!(shrinkable("violation:leader_agreement"), Ok(()));
        assert!(shrinkable("nondeterministic").is_err());
        let out = shrink_plainly(alg, &sc, &label);
        assert_eq!((out.runs, out.verified), (0, false));
        assert_eq!(ScenarioSize::of(&out.scenario), ScenarioSize::of(&sc));
        assert!(out.scenario.description.contains("not shrunk"));
    }

    /// A token ring circulates for the whole scenario: a shrink candidate that no longer fails
    /// would run every step of its 70 s with a full trace. The budget stops it a few times past
    /// the original failure's length, and the failure still shrinks. (The campaign starts at
    /// seed 2, a failure one of whose candidates passes and reaches the budget: since stop
    /// 61's input bursts every candidate of seed 0's failure fails within it.)
    #[test]
    fn shrink_candidates_stop_at_the_step_budget() {
        static LONGEST: Longest = Longest {
            steps: AtomicU64::new(0),
        };
        let longest = &LONGEST;
        let variant = variant_of(ring(), "no-generation");
        let target = Target {
            algorithm: longest,
            variant,
        };
        let out_dir = std::env::temp_dir().join(format!("sincro-budget-{}", std::process::id()));
        let cfg = FuzzConfig {
            seed_start: 2,
            seeds: 64,
            jobs: 1,
            keep_going: false,
            check_determinism: false,
            gen: GenOptions::default(),
            out_dir: out_dir.clone(),
            max_files: 100,
            coverage: false,
        };
        let opts = CampaignOptions {
            shrink: Some(ShrinkOptions::default()),
            ..CampaignOptions::default()
        };
        let mut run = TargetRun::new(&target, &cfg, &opts);
        run.run(&AtomicBool::new(false), None, &Live::default(), &|_| {});
        let r = run.report();
        let first = r.first.as_ref().expect("the bug is caught within 64 seeds");
        let path = first.path.as_ref().expect("the failure was written");
        let json = std::fs::read_to_string(path).expect("the failure file");
        let _ = std::fs::remove_dir_all(&out_dir);
        let sc = Scenario::from_json(&json).expect("the failing scenario");
        let original = ring().run(&sc, TRACED).expect("it runs");
        let budget = shrink_step_budget(&original).expect("a violation, not a limit");
        let shrunk = first.shrunk.as_ref().expect("shrunk");
        assert!(shrunk.runs > 10, "{} candidate runs", shrunk.runs);
        // A run over its limit stops at the step after it.
        let most = longest.steps.load(Ordering::Relaxed);
        assert!(
            most <= budget + 1,
            "a run took {most} steps, over the budget {budget}"
        );
        assert!(
            most >= budget,
            "no candidate reached the budget ({most} of {budget} steps): the test shows nothing"
        );
        assert!(
            sc.limits.max_events > budget,
            "the test needs a scenario longer than the budget"
        );
    }

    /// `mutex.centralized`, except that every scenario above 3 nodes is refused, as an engine
    /// missing from the build or a node count the algorithm rejects.
    struct Refusing;

    impl Algorithm for Refusing {
        fn info(&self) -> crate::algorithms::AlgorithmInfo {
            inner().info()
        }
        fn run(
            &self,
            sc: &Scenario,
            options: RunOptions,
        ) -> Result<crate::harness::engine::Outcome, crate::harness::ScenarioError> {
            if sc.nodes > 3 {
                return Err(crate::harness::ScenarioError(format!(
                    "nodes = {} is not supported",
                    sc.nodes
                )));
            }
            inner().run(sc, options)
        }
        fn workload(
            &self,
            rng: &mut crate::harness::SimRng,
            nodes: usize,
            active_ms: u64,
        ) -> Vec<crate::harness::WorkloadItem> {
            inner().workload(rng, nodes, active_ms)
        }
        fn liveness_bound_ms(&self, sc: &Scenario) -> u64 {
            inner().liveness_bound_ms(sc)
        }
    }

    static REFUSING: Refusing = Refusing;

    #[test]
    fn a_library_campaign_out_of_range_is_refused_before_any_seed() {
        // The command line checks its flags; a library caller filling FuzzConfig itself gets
        // the same limits from `TargetRun::run` (a node count of usize::MAX used to panic
        // with "capacity overflow" while generating seed 0; 100,000 jobs spawned as many
        // threads).
        let bad = [
            (
                GenOptions {
                    nodes_min: 3,
                    nodes_max: usize::MAX,
                    ..GenOptions::default()
                },
                1,
                "nodes_max = 18446744073709551615 is above the limit of 10000",
            ),
            (
                GenOptions {
                    active_ms: 0,
                    ..GenOptions::default()
                },
                1,
                "active_ms = 0 is outside 10",
            ),
            (GenOptions::default(), 100_000, "jobs = 100000 is above"),
        ];
        let variant = inner().info().variants.remove(0);
        let target = Target {
            algorithm: inner(),
            variant,
        };
        for (gen, jobs, why) in bad {
            let cfg = FuzzConfig {
                seeds: 5,
                jobs,
                gen,
                ..FuzzConfig::default()
            };
            assert!(
                cfg.error().is_some_and(|e| e.contains(why)),
                "{:?}",
                cfg.error()
            );
            let opts = CampaignOptions::default();
            let mut run = TargetRun::new(&target, &cfg, &opts);
            run.run(&AtomicBool::new(false), None, &Live::default(), &|_| {});
            let r = run.report();
            let (_, msg) = r.bad_input.as_ref().expect("refused as bad input");
            assert!(msg.contains(why), "{msg}");
            assert_eq!(r.executed, 0, "no seed runs");
        }
        assert_eq!(FuzzConfig::default().error(), None);
    }

    #[test]
    fn a_refused_scenario_is_bad_input_never_a_verdict() {
        for name in ["correct", "lease-timeout"] {
            let variant = variant_of(inner(), name);
            let target = Target {
                algorithm: &REFUSING,
                variant,
            };
            let out_dir =
                std::env::temp_dir().join(format!("sincro-refused-{}", std::process::id()));
            let cfg = FuzzConfig {
                seeds: 50,
                gen: GenOptions {
                    nodes_min: 4,
                    nodes_max: 5,
                    ..GenOptions::default()
                },
                out_dir: out_dir.clone(),
                ..FuzzConfig::default()
            };
            let report = campaign(
                &[target.clone(), target],
                &cfg,
                &CampaignOptions::default(),
                None,
                &AtomicBool::new(false),
                &Live::default(),
            );
            let _ = std::fs::remove_dir_all(&out_dir);
            let r = &report.targets[0];
            assert!(r.first.is_none(), "{name}: a refusal is not a failure");
            let (seed, msg) = r.bad_input.as_ref().expect("reported as bad input");
            assert_eq!(*seed, 0);
            assert!(msg.contains("is not supported"), "{msg}");
            assert_eq!(r.executed, 0, "{name}: a refused scenario is no run");
            assert_eq!(r.runs, 0, "{name}: nor a seed judged");
            assert_eq!(report.targets[1].executed, 0, "the campaign stops there");
            let (ok, text) = outcome(r, false);
            assert!(!ok && text.contains("BAD INPUT"), "{text}");
            assert_eq!(exit_code(&report), crate::exit::BAD_INPUT);
        }
    }

    #[test]
    fn reports_are_written_through_symlinks_and_devices() {
        let dir = std::env::temp_dir().join(format!("sincro-output-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // A new file and a regular file: written (atomically).
        let plain = dir.join("plain.xml");
        write_output(&plain, "one").unwrap();
        write_output(&plain, "two").unwrap();
        assert_eq!(std::fs::read_to_string(&plain).unwrap(), "two");
        #[cfg(unix)]
        {
            // A symlink stays a symlink; its target gets the text (created if missing).
            let link = dir.join("link.xml");
            std::os::unix::fs::symlink("target.xml", &link).unwrap();
            write_output(&link, "through").unwrap();
            assert!(std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink());
            assert_eq!(
                std::fs::read_to_string(dir.join("target.xml")).unwrap(),
                "through"
            );
            // A device is written to, never replaced; a full one is an error.
            write_output(Path::new("/dev/null"), "x").unwrap();
            assert!(!std::fs::metadata("/dev/null").unwrap().is_file());
            if Path::new("/dev/full").exists() {
                assert!(write_output(Path::new("/dev/full"), "x").is_err());
            }
        }
        // Stale temporaries of a process that is gone are removed, others kept.
        std::fs::write(dir.join(".a.json.tmp999999999"), "").unwrap();
        let mine = dir.join(format!(".b.json.tmp{}", std::process::id()));
        std::fs::write(&mine, "").unwrap();
        if Path::new("/proc/self").exists() {
            assert_eq!(remove_stale_temporaries(&dir), 1);
            assert!(mine.exists());
            // One output file's own (`--junit`): its name only, nothing else of its folder.
            std::fs::write(dir.join(".j.xml.tmp999999999"), "").unwrap();
            std::fs::write(dir.join(".other.xml.tmp999999999"), "").unwrap();
            assert_eq!(remove_stale_temporaries_of(&dir.join("j.xml")), 1);
            assert!(!dir.join(".j.xml.tmp999999999").exists());
            assert!(dir.join(".other.xml.tmp999999999").exists());
            assert!(mine.exists());
        }
        assert!(probe_dir(&dir.join("new/sub")).is_ok());
        assert!(probe_dir(&plain.join("x")).is_err());
        // A report's path is probed before the campaign: a folder or a path under a file
        // fails at once; a new file in a new folder, or a device, is fine and left untouched.
        let e = probe_output(&dir).unwrap_err();
        assert!(e.ends_with("is a directory"), "{e}");
        assert!(probe_output(&plain.join("report.xml")).is_err());
        assert!(probe_output(&dir.join("reports/new/junit.xml")).is_ok());
        assert!(!dir.join("reports/new/junit.xml").exists());
        assert!(probe_output(Path::new("/dev/null")).is_ok());
        // A path ending in a separator names a directory, existing or not (it ran the whole
        // campaign, then failed to write).
        let slash = PathBuf::from(format!("{}/", dir.join("not-yet").display()));
        let e = probe_output(&slash).unwrap_err();
        assert!(e.contains("names a directory"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn shards_cover_the_range_once() {
        for seeds in [0u64, 1, 2, 7, 10, 11] {
            for n in 1..5u64 {
                let mut all = Vec::new();
                for k in 1..=n {
                    let sh = Shard { k, n };
                    let c = sh.count(seeds);
                    all.extend((0..c).map(|j| sh.offset(j).unwrap()));
                    assert!((0..c).all(|j| sh.offset(j).unwrap() % n == k - 1));
                }
                all.sort();
                assert_eq!(
                    all,
                    (0..seeds).collect::<Vec<_>>(),
                    "{seeds} seeds, {n} shards"
                );
            }
        }
        assert_eq!("2/3".parse::<Shard>(), Ok(Shard { k: 2, n: 3 }));
        for bad in ["0/3", "4/3", "x/y", "3", "1/0", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    #[test]
    fn durations() {
        let d = |s| parse_duration(s).unwrap();
        assert_eq!(d("60s"), Duration::from_secs(60));
        assert_eq!(d("5m"), Duration::from_secs(300));
        assert_eq!(d("1h"), Duration::from_secs(3600));
        assert_eq!(d("1h30m"), Duration::from_secs(5400));
        assert_eq!(d("500ms"), Duration::from_millis(500));
        assert_eq!(d("90"), Duration::from_secs(90));
        assert_eq!(d("1.5s"), Duration::from_millis(1500));
        assert_eq!(d("1h 30m"), Duration::from_secs(5400));
        assert_eq!(d("2min"), Duration::from_secs(120));
        assert_eq!(d("1.5"), Duration::from_millis(1500));
        for bad in [
            "",
            "s",
            "10x",
            "0s",
            "-1s",
            "1..2s",
            "10 parsecs",
            "99999999999s",
        ] {
            let e = parse_duration(bad).unwrap_err();
            assert!(e.contains(&format!("`{bad}` is not a duration")), "{e}");
        }
    }
}
