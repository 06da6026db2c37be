//! Engine benchmarks (`sincro bench`).
//!
//! Two workloads, the same node code on every engine:
//! - **token ring**: 5 nodes pass one token around the ring; the holder enters and leaves the
//!   critical section (observations the mutual exclusion checker judges) and forwards it.
//! - **all-to-all broadcast**: 5 nodes broadcast round after round; a node starts round `r+1`
//!   when it has heard round `r` from every other node.
//!
//! Each runs on a bare `BinaryHeap` discrete-event loop written here as the reference limit
//! (same latency draws, no network model, no trace), on the native engine with the trace off
//! and no checker, on the native engine with full trace recording and the online mutual
//! exclusion checker, and on turmoil. The table gives delivered messages per wall second and
//! the ratio to the bare loop. Wall time is measured here, outside the simulations. A
//! configuration's first run also gives the CPU time the kernel spent for it (`getrusage`,
//! Linux): what a first traced run pays to fault in its trace's fresh pages, which depends on
//! the machine (on a virtual machine, whether the host has backed those pages yet) as much as
//! on the engine.
//!
//! A second table, in the same run, compares the engines on the same scenarios (the
//! `--turmoil-messages` size: turmoil and madsim are far slower): the hand-inlined loop, the native
//! engine, turmoil and madsim, all with the trace off and no checker, reporting runs per wall
//! second, delivered messages per wall second, simulated seconds per wall second and peak
//! memory (the rise of the resident set over the run: `VmHWM` after resetting it through
//! `/proc/self/clear_refs`, minus `VmRSS` before; Linux only), each also as a ratio to the
//! native engine. The madsim row needs a build with `RUSTFLAGS="--cfg madsim"`; other builds
//! print how to get it instead.
//!
//! A third table compares the engines on generated fuzz scenarios, in runs per second, against
//! the issue's targets ([`crate::bench_fuzz`]).

use crate::checkers::MutualExclusion;
use crate::harness::engine::{self, native, RunOptions};
use crate::harness::scenario::Limits;
use crate::harness::{
    Checker, Ctx, EngineKind, NodeId, Observation, Process, Scenario, SimRng, MAX_TIME_MS,
    NS_PER_MS,
};
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::rc::Rc;
use std::time::Instant;

/// Most runs of each configuration `--repeat` asks for (each run of a traced workload can
/// take seconds).
pub const MAX_REPEAT: u32 = 100;

/// `--turmoil-messages` when not given.
pub const DEFAULT_TURMOIL_MESSAGES: u64 = 20_000;

/// Options of `sincro bench`.
#[derive(clap::Args, Clone, Debug)]
pub struct BenchArgs {
    /// Messages delivered per workload on the reference loops and the native engine, 1 ..=
    /// 333,333,323 (each takes up to 3 ms of simulated time); the broadcast delivers whole
    /// rounds of 20, at least this many.
    #[arg(long, default_value_t = 500_000)]
    pub messages: u64,
    /// Messages per workload on turmoil (it steps 1 ms ticks, so it is far slower), 1 ..=
    /// 33,333,323 (a scenario steps at most 100,000,000 ticks: `limits.max_ticks`).
    #[arg(long, default_value_t = DEFAULT_TURMOIL_MESSAGES)]
    pub turmoil_messages: u64,
    /// Skip the turmoil rows (and the engine comparison and fuzz tables).
    #[arg(long, conflicts_with_all = ["turmoil_messages", "fuzz_seeds", "fuzz_slow_seeds"])]
    pub no_turmoil: bool,
    /// Runs of each configuration, 1 to 100; the fastest is reported (the first run of a
    /// traced configuration also pays for faulting in its trace memory).
    #[arg(long, default_value_t = 3)]
    pub repeat: u32,
    /// Only the first table's rows whose engine column contains this text (e.g. `bare`,
    /// `no trace`, `trace+checker`); the engine comparison and fuzz tables are left out.
    #[arg(long, conflicts_with_all = ["fuzz_seeds", "fuzz_slow_seeds"])]
    pub only: Option<String>,
    /// Print the scaling curve instead: wall time, peak memory and events of an election and
    /// a causal multicast at each `--scale-n` node count, each size in a child process (the
    /// options of the tables do not apply).
    #[arg(long, conflicts_with_all = [
        "messages", "turmoil_messages", "no_turmoil", "repeat", "only", "fuzz_seeds",
        "fuzz_slow_seeds",
    ])]
    pub scale: bool,
    /// Node counts of the election in `--scale` (comma-separated, each 2 ..= 10,000).
    #[arg(
        long,
        value_delimiter = ',',
        requires = "scale",
        default_value = "10,100,1000,10000"
    )]
    pub scale_n: Vec<usize>,
    /// Node counts of the causal multicast in `--scale` (each 2 ..= 1000, order.causal's
    /// limit; its cost grows with n³: 2·n·(n − 1) messages of n-entry stamps).
    #[arg(
        long,
        value_delimiter = ',',
        requires = "scale",
        default_value = "10,100,500,1000"
    )]
    pub scale_causal_n: Vec<usize>,
    /// Seeds of each algorithm's generated scenarios on the native engine in the last table,
    /// the engines on fuzz scenarios (skipped with `--no-turmoil`).
    #[arg(long, default_value_t = 5_000)]
    pub fuzz_seeds: u64,
    /// Seeds of each algorithm's generated scenarios on turmoil and madsim in that comparison.
    #[arg(long, default_value_t = 100)]
    pub fuzz_slow_seeds: u64,
    /// Run one size of the scaling curve in this process and print its result line:
    /// `election:N` or `causal:N` (what `--scale` runs in a child process for each size; the
    /// line gives the workload, n, events, messages, wall seconds, peak RSS in KiB and the
    /// verdict).
    #[arg(long, value_name = "WORKLOAD:N", conflicts_with_all = [
        "scale", "messages", "turmoil_messages", "no_turmoil", "repeat", "only", "fuzz_seeds",
        "fuzz_slow_seeds",
    ])]
    pub scale_one: Option<String>,
}

const NODES: usize = 5;
const LAT_MIN_NS: u64 = 1_000_000;
const LAT_MAX_NS: u64 = 2_000_000;

/// The token-ring node.
#[derive(Debug)]
pub struct TokenRing {
    limit: u64,
}

/// The target for the native engine with the trace off, as a share of the bare loop's rate
/// (issue 15).
pub const NATIVE_VS_BARE_MIN: f64 = 0.9;

/// The target for the native engine with the trace recorded and a checker on, in delivered
/// messages per second on the *first* run (which also faults in the trace's memory).
pub const TRACED_FIRST_MSG_PER_S_MIN: f64 = 5e6;

/// The token (hop count).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Token(pub u64);

impl Process for TokenRing {
    type Msg = Token;
    type Timer = ();
    type Input = ();
    type Stable = ();

    fn on_start(&mut self, ctx: &mut Ctx<'_, Self>) {
        if ctx.id() == 0 {
            ctx.send(1 % ctx.nodes(), Token(0));
        }
    }

    fn on_message(&mut self, ctx: &mut Ctx<'_, Self>, _from: NodeId, Token(hops): Token) {
        ctx.observe(Observation::CsEnter { resource: 0 });
        ctx.observe(Observation::CsExit { resource: 0 });
        if hops + 1 < self.limit {
            ctx.send((ctx.id() + 1) % ctx.nodes(), Token(hops + 1));
        }
    }

    fn on_timer(&mut self, _: &mut Ctx<'_, Self>, _: ()) {}
    fn on_input(&mut self, _: &mut Ctx<'_, Self>, _: ()) {}
}

/// The all-to-all broadcast node.
#[derive(Debug)]
pub struct Broadcast {
    rounds: u32,
    heard: Vec<u32>,
}

/// A round announcement.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Round(pub u32);

impl Process for Broadcast {
    type Msg = Round;
    type Timer = ();
    type Input = ();
    type Stable = ();

    fn on_start(&mut self, ctx: &mut Ctx<'_, Self>) {
        ctx.broadcast(Round(0));
    }

    fn on_message(&mut self, ctx: &mut Ctx<'_, Self>, _from: NodeId, Round(r): Round) {
        let heard = &mut self.heard[r as usize];
        *heard += 1;
        if *heard as usize == ctx.nodes() - 1 && r + 1 < self.rounds {
            ctx.broadcast(Round(r + 1));
        }
    }

    fn on_timer(&mut self, _: &mut Ctx<'_, Self>, _: ()) {}
    fn on_input(&mut self, _: &mut Ctx<'_, Self>, _: ()) {}
}

fn scenario(name: &str, engine: EngineKind, messages: u64) -> Scenario {
    let mut sc = Scenario::from_json(&format!(
        r#"{{"algorithm": "bench.{name}", "nodes": {NODES}, "seed": 42, "duration_ms": 1000000000,
            "network": {{"latency": {{"uniform": {{"min_ms": 1, "max_ms": 2}}}}}},
            "limits": {{"max_events": 1000000000}}}}"#
    ))
    .expect("bench scenario is valid");
    sc.engine = engine;
    // Enough simulated time for `messages` deliveries at <= 2 ms each.
    sc.duration_ms = messages
        .saturating_mul(2)
        .saturating_add(10)
        .min(MAX_TIME_MS);
    // The benchmark asks turmoil for every tick of that time on purpose.
    // (at most the most ticks a scenario may step: a native run's duration may go past it)
    sc.limits.max_ticks = sc.duration_ms.min(Limits::MAX_TICKS);
    // It measures recording itself: a traced run of the default 500,000 messages records
    // about 2 million events, past the 256 MiB that guards a user's run.
    sc.limits.max_trace_bytes = Limits::MAX_TRACE_BYTES;
    // and it sends up to 333 million messages, past the 100 million of a user's run
    sc.limits.max_sent = Limits::MAX_SENT;
    sc
}

/// The engine comparison's scenario: more simulated time than `scenario` gives, since a madsim
/// hop takes at least 2 ms (see `engine::madsim`) where the bench's latency is 1–2 ms.
fn comparison_scenario(name: &str, engine: EngineKind, messages: u64) -> Scenario {
    let mut sc = scenario(name, engine, messages);
    sc.duration_ms = messages
        .saturating_mul(3)
        .saturating_add(10)
        .min(MAX_TIME_MS);
    sc.limits.max_ticks = sc.duration_ms.min(Limits::MAX_TICKS);
    sc
}

/// Whole rounds of the broadcast delivering at least `messages` (39 gave one round of 20).
fn broadcast_rounds(messages: u64) -> u32 {
    u32::try_from(messages.div_ceil((NODES * (NODES - 1)) as u64).max(1)).unwrap_or(u32::MAX)
}

/// Bare reference loop: token ring.
fn bare_token_ring(messages: u64) -> u64 {
    let mut rng = SimRng::new(42);
    let mut heap: BinaryHeap<Reverse<(u64, u64, usize, u64)>> = BinaryHeap::new();
    let mut seq = 0;
    heap.push(Reverse((rng.range_u64(LAT_MIN_NS, LAT_MAX_NS), seq, 1, 0)));
    let mut delivered = 0;
    while let Some(Reverse((t, _, node, hops))) = heap.pop() {
        delivered += 1;
        if hops + 1 < messages {
            seq += 1;
            heap.push(Reverse((
                t + rng.range_u64(LAT_MIN_NS, LAT_MAX_NS),
                seq,
                (node + 1) % NODES,
                hops + 1,
            )));
        }
    }
    delivered
}

/// Bare reference loop: token ring; (delivered, simulated ns at the end).
fn bare_token_ring_timed(messages: u64) -> (u64, u64) {
    let mut rng = SimRng::new(42);
    let mut heap: BinaryHeap<Reverse<(u64, u64, usize, u64)>> = BinaryHeap::new();
    heap.push(Reverse((rng.range_u64(LAT_MIN_NS, LAT_MAX_NS), 0, 1, 0)));
    let (mut delivered, mut end, mut seq) = (0, 0, 0);
    while let Some(Reverse((t, _, node, hops))) = heap.pop() {
        delivered += 1;
        end = t;
        if hops + 1 < messages {
            seq += 1;
            let at = t + rng.range_u64(LAT_MIN_NS, LAT_MAX_NS);
            heap.push(Reverse((at, seq, (node + 1) % NODES, hops + 1)));
        }
    }
    (delivered, end)
}

/// Bare reference loop: all-to-all broadcast; (delivered, simulated ns at the end).
fn bare_broadcast_timed(messages: u64) -> (u64, u64) {
    let rounds = broadcast_rounds(messages);
    let mut rng = SimRng::new(42);
    let mut heap: BinaryHeap<Reverse<(u64, u64, usize, u32)>> = BinaryHeap::new();
    let mut heard = vec![vec![0u32; rounds as usize]; NODES];
    let mut seq = 0;
    let mut bcast = |heap: &mut BinaryHeap<_>, t: u64, from: usize, r: u32, seq: &mut u64| {
        for to in (0..NODES).filter(|&to| to != from) {
            *seq += 1;
            let at = t + rng.range_u64(LAT_MIN_NS, LAT_MAX_NS);
            heap.push(Reverse((at, *seq, to, r)));
        }
    };
    for from in 0..NODES {
        bcast(&mut heap, 0, from, 0, &mut seq);
    }
    let (mut delivered, mut end) = (0, 0);
    while let Some(Reverse((t, _, node, r))) = heap.pop() {
        delivered += 1;
        end = t;
        let h = &mut heard[node][r as usize];
        *h += 1;
        if *h as usize == NODES - 1 && r + 1 < rounds {
            bcast(&mut heap, t, node, r + 1, &mut seq);
        }
    }
    (delivered, end)
}

/// Bare reference loop: all-to-all broadcast.
fn bare_broadcast(messages: u64) -> u64 {
    let rounds = broadcast_rounds(messages);
    let mut rng = SimRng::new(42);
    let mut heap: BinaryHeap<Reverse<(u64, u64, usize, u32)>> = BinaryHeap::new();
    let mut heard = vec![vec![0u32; rounds as usize]; NODES];
    let mut seq = 0;
    let mut bcast = |heap: &mut BinaryHeap<_>, t: u64, from: usize, r: u32, seq: &mut u64| {
        for to in (0..NODES).filter(|&to| to != from) {
            *seq += 1;
            heap.push(Reverse((
                t + rng.range_u64(LAT_MIN_NS, LAT_MAX_NS),
                *seq,
                to,
                r,
            )));
        }
    };
    for from in 0..NODES {
        bcast(&mut heap, 0, from, 0, &mut seq);
    }
    let mut delivered = 0;
    while let Some(Reverse((t, _, node, r))) = heap.pop() {
        delivered += 1;
        let h = &mut heard[node][r as usize];
        *h += 1;
        if *h as usize == NODES - 1 && r + 1 < rounds {
            bcast(&mut heap, t, node, r + 1, &mut seq);
        }
    }
    delivered
}

/// One measured row.
#[derive(Clone, Debug)]
pub struct Row {
    /// Workload name.
    pub workload: &'static str,
    /// Engine / configuration.
    pub engine: &'static str,
    /// Messages delivered.
    pub delivered: u64,
    /// Wall seconds of the fastest run.
    pub secs: f64,
    /// Wall seconds of the first run (it also pays for faulting in fresh memory).
    pub first_secs: f64,
    /// CPU seconds the kernel spent for this thread during the first run (`None` where it
    /// cannot be read): mostly clearing the fresh pages the run's trace is faulted into, a
    /// cost of the machine's memory rather than of the engine.
    pub first_kernel_secs: Option<f64>,
}

impl Row {
    /// Delivered messages per wall second.
    pub fn rate(&self) -> f64 {
        self.delivered as f64 / self.secs.max(1e-9)
    }
}

fn timed(
    args: &BenchArgs,
    workload: &'static str,
    engine: &'static str,
    f: impl Fn() -> u64,
) -> Option<Row> {
    if args
        .only
        .as_ref()
        .is_some_and(|o| !engine.contains(o.as_str()) && !engine.contains("loop"))
    {
        return None;
    }
    let mut best = f64::INFINITY;
    let mut first = None;
    let mut first_kernel_secs = None;
    let mut delivered = 0;
    // The first run records into fresh memory, not into the buffer an earlier workload left.
    sincro_harness::Trace::free_spare_buffer();
    for _ in 0..args.repeat.max(1) {
        let kernel_before = thread_kernel_secs();
        let start = Instant::now();
        delivered = f();
        let secs = start.elapsed().as_secs_f64();
        if first.is_none() {
            first_kernel_secs = kernel_before
                .zip(thread_kernel_secs())
                .map(|(before, after)| (after - before).max(0.0));
        }
        if std::env::var_os("SINCRO_BENCH_VERBOSE").is_some() {
            eprintln!("  {workload} / {engine}: {secs:.3} s");
        }
        best = best.min(secs);
        first.get_or_insert(secs);
    }
    Some(Row {
        workload,
        engine,
        delivered,
        secs: best,
        first_secs: first.unwrap_or(best),
        first_kernel_secs,
    })
}

/// CPU seconds the kernel has spent for the calling thread so far (`getrusage`'s `ru_stime`
/// of `RUSAGE_THREAD`; `None` off Linux or if the call fails). Its rise over a run is
/// mostly page faults: a first traced run clears every page of its trace, and on a virtual
/// machine whose memory the host has not backed yet, that clearing is slow.
fn thread_kernel_secs() -> Option<f64> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: getrusage writes into the zeroed struct we own; RUSAGE_THREAD is valid on
        // Linux.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        if unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) } != 0 {
            return None;
        }
        Some(ru.ru_stime.tv_sec as f64 + ru.ru_stime.tv_usec as f64 / 1e6)
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// What a traced first run's kernel time says: `, 0.40 s of its 0.51 s in the kernel
/// (faulting in fresh memory)`; empty where it cannot be read.
fn kernel_note(first: &Row) -> String {
    match first.first_kernel_secs {
        Some(k) => format!(
            ", {k:.2} s of its {:.2} s in the kernel (faulting in fresh memory)",
            first.first_secs
        ),
        None => String::new(),
    }
}

/// The table cell of a first run's kernel seconds.
fn kernel_cell(secs: Option<f64>) -> String {
    secs.map_or_else(|| "n/a".to_string(), |s| format!("{s:.3}"))
}

fn run_native<P: Process>(sc: &Scenario, factory: engine::Factory<P>, traced: bool) -> u64 {
    let checkers: Vec<Box<dyn Checker>> = if traced {
        vec![Box::new(MutualExclusion::new(NODES))]
    } else {
        vec![]
    };
    let out = native::Sim::new(sc, factory, checkers, RunOptions::new(traced))
        .expect("valid")
        .run();
    assert!(out.verdict.is_pass(), "bench run failed: {}", out.verdict);
    out.stats.delivered
}

fn run_engine<P: Process>(sc: &Scenario, factory: engine::Factory<P>) -> Result<u64, String> {
    let out = engine::run(sc, factory, vec![], RunOptions::new(false)).map_err(|e| e.0)?;
    Ok(out.stats.delivered)
}

/// Measures every row.
pub fn measure(args: &BenchArgs) -> Vec<Row> {
    let m = args.messages;
    let tm = args.turmoil_messages;
    let mut rows = Vec::new();
    let ring = |limit: u64| -> engine::Factory<TokenRing> { Rc::new(move |_| TokenRing { limit }) };
    let bcast = |msgs: u64| -> engine::Factory<Broadcast> {
        let rounds = broadcast_rounds(msgs);
        Rc::new(move |_| Broadcast {
            rounds,
            heard: vec![0; rounds as usize],
        })
    };
    rows.extend(timed(args, "token ring", "bare loop", || {
        engine::bare::run(
            NODES,
            |_| TokenRing { limit: m },
            42,
            LAT_MIN_NS,
            LAT_MAX_NS,
        )
    }));
    rows.extend(timed(args, "token ring", "hand-inlined loop", || {
        bare_token_ring(m)
    }));
    rows.extend(timed(args, "token ring", "native (no trace)", || {
        run_native(&scenario("ring", EngineKind::Native, m), ring(m), false)
    }));
    rows.extend(timed(args, "token ring", "native (trace+checker)", || {
        run_native(&scenario("ring", EngineKind::Native, m), ring(m), true)
    }));
    if !args.no_turmoil {
        rows.extend(timed(args, "token ring", "turmoil", || {
            run_engine(&scenario("ring", EngineKind::Turmoil, tm), ring(tm)).unwrap_or(0)
        }));
    }
    rows.extend(timed(args, "broadcast", "bare loop", || {
        let rounds = broadcast_rounds(m);
        engine::bare::run(
            NODES,
            |_| Broadcast {
                rounds,
                heard: vec![0; rounds as usize],
            },
            42,
            LAT_MIN_NS,
            LAT_MAX_NS,
        )
    }));
    rows.extend(timed(args, "broadcast", "hand-inlined loop", || {
        bare_broadcast(m)
    }));
    rows.extend(timed(args, "broadcast", "native (no trace)", || {
        run_native(&scenario("bcast", EngineKind::Native, m), bcast(m), false)
    }));
    rows.extend(timed(args, "broadcast", "native (trace+checker)", || {
        run_native(&scenario("bcast", EngineKind::Native, m), bcast(m), true)
    }));
    if !args.no_turmoil {
        rows.extend(timed(args, "broadcast", "turmoil", || {
            run_engine(&scenario("bcast", EngineKind::Turmoil, tm), bcast(tm)).unwrap_or(0)
        }));
    }
    rows
}

/// One row of the engine comparison.
#[derive(Clone, Debug)]
pub struct EngineRow {
    /// Workload name.
    pub workload: &'static str,
    /// `hand-inlined loop`, `native`, `turmoil` or `madsim`.
    pub engine: &'static str,
    /// Messages delivered.
    pub delivered: u64,
    /// Simulated ns at the end of the run.
    pub sim_ns: u64,
    /// Wall seconds of the fastest run.
    pub secs: f64,
    /// Peak rise of the resident set over one run, KiB (Linux only).
    pub peak_kib: Option<u64>,
    /// Why the row could not be measured (e.g. madsim in a build without `--cfg madsim`).
    pub missing: Option<String>,
}

fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line[field.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

/// Runs `f` once measuring the rise of the resident set (peak minus start), KiB.
fn with_peak<T>(f: impl FnOnce() -> T) -> (T, Option<u64>) {
    // Writing 5 to clear_refs resets VmHWM to the current RSS (Linux >= 4.0).
    let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
    let before = status_kib("VmRSS:");
    let out = f();
    let peak = status_kib("VmHWM:");
    let rise = match (reset, before, peak) {
        (true, Some(b), Some(p)) => Some(p.saturating_sub(b)),
        _ => None,
    };
    (out, rise)
}

fn engine_row(
    args: &BenchArgs,
    workload: &'static str,
    engine: &'static str,
    f: impl Fn() -> Result<(u64, u64), String>,
) -> EngineRow {
    let mut best = f64::INFINITY;
    let mut peak_kib = None;
    let mut result = (0, 0);
    for i in 0..args.repeat.max(1) {
        let start = Instant::now();
        let (r, peak) = with_peak(&f);
        let secs = start.elapsed().as_secs_f64();
        match r {
            Ok(r) => result = r,
            Err(e) => {
                return EngineRow {
                    workload,
                    engine,
                    delivered: 0,
                    sim_ns: 0,
                    secs: 0.0,
                    peak_kib: None,
                    missing: Some(e),
                }
            }
        }
        if std::env::var_os("SINCRO_BENCH_VERBOSE").is_some() {
            eprintln!("  {workload} / {engine}: {secs:.3} s, peak +{peak:?} KiB");
        }
        best = best.min(secs);
        if i == 0 || peak_kib.is_none() {
            peak_kib = peak;
        } else if let (Some(a), Some(b)) = (peak_kib, peak) {
            peak_kib = Some(a.min(b));
        }
    }
    EngineRow {
        workload,
        engine,
        delivered: result.0,
        sim_ns: result.1,
        secs: best,
        peak_kib,
        missing: None,
    }
}

fn run_any<P: Process>(sc: &Scenario, factory: engine::Factory<P>) -> Result<(u64, u64), String> {
    let out = engine::run(sc, factory, vec![], RunOptions::new(false)).map_err(|e| e.0)?;
    if !out.verdict.is_pass() {
        return Err(format!("bench run failed: {}", out.verdict));
    }
    Ok((out.stats.delivered, out.stats.end_t_ns))
}

/// Measures the engine comparison: the same two scenarios (`messages` deliveries each) on the
/// hand-inlined loop (the workload written against a `BinaryHeap`, no `Process`: not the
/// bare loop of the first table, which runs the node code), native, turmoil and madsim.
pub fn measure_engines(args: &BenchArgs, messages: u64) -> Vec<EngineRow> {
    let m = messages;
    let ring = move || -> engine::Factory<TokenRing> { Rc::new(move |_| TokenRing { limit: m }) };
    let bcast = move || -> engine::Factory<Broadcast> {
        let rounds = broadcast_rounds(m);
        Rc::new(move |_| Broadcast {
            rounds,
            heard: vec![0; rounds as usize],
        })
    };
    let mut rows = Vec::new();
    // Every engine reports the scenario's duration as its simulated time; so does the bare
    // loop's row (its own last event comes earlier: it stops when the work is done).
    let span_ns = comparison_scenario("ring", EngineKind::Native, m).duration_ms * NS_PER_MS;
    rows.push(engine_row(args, "token ring", "hand-inlined loop", || {
        Ok((bare_token_ring_timed(m).0, span_ns))
    }));
    for (name, kind) in [
        ("native", EngineKind::Native),
        ("turmoil", EngineKind::Turmoil),
        ("madsim", EngineKind::Madsim),
    ] {
        rows.push(engine_row(args, "token ring", name, || {
            run_any(&comparison_scenario("ring", kind, m), ring())
        }));
    }
    rows.push(engine_row(args, "broadcast", "hand-inlined loop", || {
        Ok((bare_broadcast_timed(m).0, span_ns))
    }));
    for (name, kind) in [
        ("native", EngineKind::Native),
        ("turmoil", EngineKind::Turmoil),
        ("madsim", EngineKind::Madsim),
    ] {
        rows.push(engine_row(args, "broadcast", name, || {
            run_any(&comparison_scenario("bcast", kind, m), bcast())
        }));
    }
    rows
}

/// The engine comparison as a markdown table.
pub fn engines_table(rows: &[EngineRow]) -> String {
    use std::fmt::Write as _;
    let mut t = String::new();
    t.push_str("| workload | engine | delivered | runs/s | delivered msg/s | simulated s / wall s | peak memory | vs native: runs/s | msg/s | sim s/s | memory |\n");
    t.push_str("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    // Why an engine has no figure, once below the table (as the fuzz table does): madsim's
    // paragraph filled a row of its own under each of its rows, 400 columns wide.
    let mut notes = Notes::default();
    for r in rows {
        if let Some(why) = &r.missing {
            let _ = writeln!(
                t,
                "| {} | {} | – | – | – | – | – | – | – | – | no figure (note {}) |",
                r.workload,
                r.engine,
                notes.number(why)
            );
            continue;
        }
        let native = rows
            .iter()
            .find(|n| n.workload == r.workload && n.engine == "native" && n.missing.is_none());
        let runs = 1.0 / r.secs.max(1e-9);
        let rate = r.delivered as f64 / r.secs.max(1e-9);
        let sim = r.sim_ns as f64 / 1e9 / r.secs.max(1e-9);
        let mem = r.peak_kib.map_or("n/a".to_string(), |k| {
            format!("{:.1} MiB", k as f64 / 1024.0)
        });
        let (rr, rm, rs, rmem) = match native {
            Some(n) => {
                let nruns = 1.0 / n.secs.max(1e-9);
                let nrate = n.delivered as f64 / n.secs.max(1e-9);
                let nsim = n.sim_ns as f64 / 1e9 / n.secs.max(1e-9);
                let mem = match (r.peak_kib, n.peak_kib) {
                    (Some(a), Some(b)) if b > 0 => format!("{:.2}", a as f64 / b as f64),
                    _ => "n/a".into(),
                };
                (
                    format!("{:.3}", runs / nruns),
                    format!("{:.3}", rate / nrate),
                    format!("{:.3}", sim / nsim),
                    mem,
                )
            }
            None => ("n/a".into(), "n/a".into(), "n/a".into(), "n/a".into()),
        };
        let _ = writeln!(
            t,
            "| {} | {} | {} | {:.2} | {:.3e} | {:.1} | {} | {} | {} | {} | {} |",
            r.workload, r.engine, r.delivered, runs, rate, sim, mem, rr, rm, rs, rmem
        );
    }
    t.push_str(&notes.render());
    t
}

/// The notes below a table, each said once however many rows cite it.
#[derive(Default)]
pub(crate) struct Notes(Vec<String>);

impl Notes {
    /// The number (from 1) of the note saying `why`, added if new.
    pub(crate) fn number(&mut self, why: &str) -> usize {
        match self.0.iter().position(|n| n == why) {
            Some(k) => k + 1,
            None => {
                self.0.push(why.to_string());
                self.0.len()
            }
        }
    }

    /// `\nnote 1: …` lines, one per note (empty without notes).
    pub(crate) fn render(&self) -> String {
        self.0
            .iter()
            .enumerate()
            .map(|(k, why)| format!("\nnote {}: {why}\n", k + 1))
            .collect()
    }
}

/// `--scale`: the scaling curve, each size in a child process; returns the exit code.
fn scale_main(args: &BenchArgs) -> i32 {
    use crate::bench_scale as scale;
    let max = crate::harness::scenario::MAX_NODES;
    if let Some(&bad) = args.scale_n.iter().find(|&&n| !(2..=max).contains(&n)) {
        eprintln!("error: --scale-n = {bad} is outside 2..={max}");
        return crate::exit::BAD_INPUT;
    }
    let cmax = crate::algorithms::ordering::MAX_NODES;
    if let Some(&bad) = args
        .scale_causal_n
        .iter()
        .find(|&&n| !(2..=cmax).contains(&n))
    {
        eprintln!("error: --scale-causal-n = {bad} is outside 2..={cmax}");
        return crate::exit::BAD_INPUT;
    }
    let sizes = [
        ("election", &args.scale_n),
        ("causal", &args.scale_causal_n),
    ];
    // A size given twice would be measured twice, two rows of one point (`table` refuses its
    // repeated values likewise).
    for (flag, ns) in [("--scale-n", sizes[0].1), ("--scale-causal-n", sizes[1].1)] {
        let mut seen = std::collections::BTreeSet::new();
        if let Some(n) = ns.iter().find(|&&n| !seen.insert(n)) {
            eprintln!("error: {flag} names `{n}` twice");
            return crate::exit::BAD_INPUT;
        }
    }
    let mut points = Vec::new();
    let mut code = crate::exit::PASS;
    for (w, ns) in sizes {
        for &n in ns {
            eprintln!("measuring {w} at n = {n}...");
            match scale::run_child(w, n) {
                Ok(p) => {
                    if p.verdict != "pass" {
                        eprintln!("error: {w} at n = {n}: {}", p.verdict);
                        code = crate::exit::VIOLATION;
                    }
                    points.push(p);
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    code = crate::exit::VIOLATION;
                }
            }
        }
    }
    println!("Scaling (native engine, the algorithm's checkers on, trace off; each size in its own process):");
    println!();
    print!("{}", scale::table(&points));
    code
}

/// The engine column of the first table's rows (what `--only` matches).
const ROW_ENGINES: [&str; 5] = [
    "bare loop",
    "hand-inlined loop",
    "native (no trace)",
    "native (trace+checker)",
    "turmoil",
];

/// Runs the benchmark and prints the table; returns the exit code.
pub fn main(args: &BenchArgs) -> i32 {
    let sizes_given = args.scale_n != crate::bench_scale::DEFAULT_SCALE_N
        || args.scale_causal_n != crate::bench_scale::DEFAULT_CAUSAL_N;
    if let Some(one) = &args.scale_one {
        // clap's `conflicts_with` does not see an option with a default: check it here.
        if sizes_given {
            eprintln!(
                "error: --scale-n and --scale-causal-n are the sizes of --scale; --scale-one \
                 `{one}` runs the one size it names"
            );
            return crate::exit::BAD_INPUT;
        }
        let run = crate::bench_scale::parse_one(one)
            .and_then(|(w, n)| crate::bench_scale::run_here(&w, n));
        return match run {
            Ok(p) => {
                println!("{}", crate::bench_scale::line(&p));
                crate::exit::PASS
            }
            Err(e) => {
                eprintln!("error: {e}");
                crate::exit::BAD_INPUT
            }
        };
    }
    if args.scale {
        return scale_main(args);
    }
    // clap's `requires` does not see an option with a default: check it here.
    if sizes_given {
        eprintln!("error: --scale-n and --scale-causal-n are the sizes of --scale: give it too");
        return crate::exit::BAD_INPUT;
    }
    if args.messages == 0 || args.turmoil_messages == 0 {
        eprintln!("error: --messages and --turmoil-messages must be at least 1");
        return crate::exit::BAD_INPUT;
    }
    // The rows that can be measured: the turmoil ones only without --no-turmoil.
    let engines: Vec<&str> = ROW_ENGINES
        .into_iter()
        .filter(|e| !(args.no_turmoil && *e == "turmoil"))
        .collect();
    if args.only.as_deref().is_some_and(|o| o.trim().is_empty()) {
        eprintln!("error: --only is empty: give part of a row's engine (e.g. `bare`)");
        return crate::exit::BAD_INPUT;
    }
    if let Some(o) = args
        .only
        .as_deref()
        .filter(|o| !engines.iter().any(|e| e.contains(o)))
    {
        eprintln!(
            "error: --only `{o}` matches no row's engine{}; the engines are: {}",
            if args.no_turmoil {
                " (--no-turmoil skips the turmoil rows)"
            } else {
                ""
            },
            engines.join(", ")
        );
        return crate::exit::BAD_INPUT;
    }
    // An --only that keeps no turmoil row leaves --turmoil-messages unused (its progress
    // line still announced it).
    let turmoil_kept =
        !args.no_turmoil && args.only.as_deref().is_none_or(|o| "turmoil".contains(o));
    if !turmoil_kept && args.turmoil_messages != DEFAULT_TURMOIL_MESSAGES {
        eprintln!(
            "error: --turmoil-messages sizes the turmoil rows, and --only `{}` keeps none",
            args.only.as_deref().unwrap_or_default()
        );
        return crate::exit::BAD_INPUT;
    }
    let seeds_max = crate::bench_fuzz::SEEDS_MAX;
    if let Some(bad) = [args.fuzz_seeds, args.fuzz_slow_seeds]
        .into_iter()
        .find(|s| !(1..=seeds_max).contains(s))
    {
        eprintln!("error: --fuzz-seeds and --fuzz-slow-seeds must be 1..={seeds_max}, got {bad}");
        return crate::exit::BAD_INPUT;
    }
    if !(1..=MAX_REPEAT).contains(&args.repeat) {
        eprintln!(
            "error: --repeat must be 1..={MAX_REPEAT}, got {}",
            args.repeat
        );
        return crate::exit::BAD_INPUT;
    }
    // Each message takes up to 3 ms of simulated time, within the limit on any time.
    let max = MAX_TIME_MS / 3 - 10;
    if args.messages > max {
        eprintln!(
            "error: --messages must be at most {max}, got {}",
            args.messages
        );
        return crate::exit::BAD_INPUT;
    }
    // Turmoil steps every tick of that time, within the most ticks a scenario may step.
    let turmoil_max = Limits::MAX_TICKS / 3 - 10;
    if args.turmoil_messages > turmoil_max {
        eprintln!(
            "error: --turmoil-messages must be at most {turmoil_max}, got {}",
            args.turmoil_messages
        );
        return crate::exit::BAD_INPUT;
    }
    let per_round = (NODES * (NODES - 1)) as u64;
    let seeds = |n: u64| {
        if n == 1 {
            "1 seed".to_string()
        } else {
            format!("{n} seeds")
        }
    };
    let count = |m: u64| {
        if m == 1 {
            "1 message".to_string()
        } else {
            format!("{m} messages")
        }
    };
    let turmoil = if !turmoil_kept {
        String::new()
    } else {
        format!(", {} per turmoil run", count(args.turmoil_messages))
    };
    eprintln!(
        "measuring ({} per native run{turmoil}; the broadcast delivers whole rounds of \
         {per_round})...",
        count(args.messages)
    );
    let rows = measure(args);
    println!("| workload | engine | delivered | best wall s | delivered msg/s (best) | first run msg/s | first run: kernel s | best vs bare loop |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|");
    for r in &rows {
        let bare = rows
            .iter()
            .find(|b| b.workload == r.workload && b.engine == "bare loop")
            .expect("bare row");
        println!(
            "| {} | {} | {} | {:.3} | {:.3e} | {:.3e} | {} | {:.3} |",
            r.workload,
            r.engine,
            r.delivered,
            r.secs,
            r.rate(),
            r.delivered as f64 / r.first_secs.max(1e-9),
            kernel_cell(r.first_kernel_secs),
            r.rate() / bare.rate()
        );
    }
    println!();
    for w in ["token ring", "broadcast"] {
        let get = |e: &str| rows.iter().find(|r| r.workload == w && r.engine == e);
        if let (Some(bare), Some(fast), Some(traced)) = (
            get("bare loop"),
            get("native (no trace)"),
            get("native (trace+checker)"),
        ) {
            let ratio = fast.rate() / bare.rate();
            let first = traced.delivered as f64 / traced.first_secs.max(1e-9);
            let met = |ok: bool| if ok { "met" } else { "NOT met" };
            println!(
                "{w}: native/bare = {ratio:.2} (target >= {NATIVE_VS_BARE_MIN}: {}); traced+checked first run = {first:.2e} msg/s (target >= {TRACED_FIRST_MSG_PER_S_MIN:.0e}: {}){}",
                met(ratio >= NATIVE_VS_BARE_MIN),
                met(first >= TRACED_FIRST_MSG_PER_S_MIN),
                kernel_note(traced)
            );
        }
    }
    if !args.no_turmoil && args.only.is_none() {
        println!();
        println!(
            "Engines on the same scenarios ({} each; trace off, no checker):",
            count(args.turmoil_messages)
        );
        println!();
        print!(
            "{}",
            engines_table(&measure_engines(args, args.turmoil_messages))
        );
        println!();
        println!(
            "Engines on generated fuzz scenarios (`fuzz --strategy random --fixed-phase`, correct variants, checkers on, trace off; {} on native, best of {}; {} on turmoil and madsim):",
            seeds(args.fuzz_seeds),
            args.repeat,
            seeds(args.fuzz_slow_seeds)
        );
        println!();
        let rows = crate::bench_fuzz::measure(args.fuzz_seeds, args.fuzz_slow_seeds, args.repeat);
        print!("{}", crate::bench_fuzz::table(&rows));
        println!();
        for line in crate::bench_fuzz::verdicts(&rows) {
            println!("{line}");
        }
    }
    crate::exit::PASS
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bench options of a test: the tables' sizes and repeats, no scaling curve, one fuzz seed.
    fn small_args(
        messages: u64,
        turmoil_messages: u64,
        no_turmoil: bool,
        repeat: u32,
    ) -> BenchArgs {
        BenchArgs {
            messages,
            turmoil_messages,
            no_turmoil,
            repeat,
            only: None,
            scale: false,
            scale_n: vec![],
            scale_causal_n: vec![],
            fuzz_seeds: 1,
            fuzz_slow_seeds: 1,
            scale_one: None,
        }
    }

    #[test]
    fn every_configuration_delivers_the_same_workload() {
        let m = 2_000;
        assert_eq!(bare_token_ring(m), m);
        let ring: engine::Factory<TokenRing> = Rc::new(move |_| TokenRing { limit: m });
        assert_eq!(
            run_native(
                &scenario("ring", EngineKind::Native, m),
                ring.clone(),
                false
            ),
            m
        );
        assert_eq!(
            run_native(&scenario("ring", EngineKind::Native, m), ring, true),
            m
        );
        let rounds = broadcast_rounds(m) as u64;
        let expected = rounds * (NODES * (NODES - 1)) as u64;
        assert_eq!(bare_broadcast(m), expected);
        let b: engine::Factory<Broadcast> = Rc::new(move |_| Broadcast {
            rounds: rounds as u32,
            heard: vec![0; rounds as usize],
        });
        assert_eq!(
            run_native(&scenario("bcast", EngineKind::Native, m), b, false),
            expected
        );
    }

    #[test]
    fn a_note_is_numbered_once_and_said_once() {
        let mut notes = Notes::default();
        assert_eq!(notes.render(), "");
        assert_eq!(notes.number("needs --cfg madsim"), 1);
        assert_eq!(notes.number("other"), 2);
        assert_eq!(notes.number("needs --cfg madsim"), 1);
        assert_eq!(
            notes.render(),
            "\nnote 1: needs --cfg madsim\n\nnote 2: other\n"
        );
    }

    #[test]
    fn the_engine_comparison_runs_the_same_workload_everywhere() {
        let args = small_args(300, 300, false, 1);
        let rows = measure_engines(&args, 300);
        assert_eq!(rows.len(), 8);
        for r in &rows {
            if r.engine == "madsim" && !engine::MADSIM {
                let why = r.missing.as_deref().unwrap();
                assert!(why.contains("--cfg madsim"), "{why}");
                continue;
            }
            assert!(r.missing.is_none(), "{r:?}");
            let want = if r.workload == "token ring" {
                300
            } else {
                broadcast_rounds(300) as u64 * (NODES * (NODES - 1)) as u64
            };
            assert_eq!(r.delivered, want, "{r:?}");
            assert!(r.sim_ns > 0, "{r:?}");
        }
        let table = engines_table(&rows);
        assert_eq!(
            table.lines().filter(|l| l.contains("| native |")).count(),
            2
        );
        assert!(table.contains("| madsim |"));
        if !engine::MADSIM {
            // Both madsim rows cite one note, said once under the table; no row is wider
            // than the header.
            assert_eq!(table.matches("no figure (note 1) |").count(), 2, "{table}");
            assert_eq!(table.matches("\nnote 1: ").count(), 1, "{table}");
            assert!(!table.contains("note 2"), "{table}");
            let header = table.lines().next().unwrap().chars().count();
            for row in table.lines().filter(|l| l.starts_with('|')) {
                assert!(row.chars().count() <= header, "{row}");
            }
        }
        let (bare, _) = bare_token_ring_timed(300);
        assert_eq!(bare, bare_token_ring(300));
    }

    #[test]
    fn a_first_run_reports_its_kernel_time_and_the_line_says_so() {
        let args = small_args(50, DEFAULT_TURMOIL_MESSAGES, true, 2);
        // A first run that faults in 64 MiB of fresh memory, page by page.
        let row = timed(&args, "probe", "native (trace+checker)", || {
            let mut v = vec![0u8; 64 << 20];
            for page in v.chunks_mut(4096) {
                page[0] = 1;
            }
            std::hint::black_box(&v);
            v.len() as u64 / 4096
        })
        .expect("no --only: every row is measured");
        assert_eq!(row.delivered, 16_384);
        if cfg!(target_os = "linux") {
            let k = row.first_kernel_secs.expect("getrusage reads on Linux");
            assert!(k >= 0.0 && k.is_finite(), "{k}");
            // The kernel's time never runs back, and the thread's is within the process's.
            let (a, b) = (thread_kernel_secs().unwrap(), thread_kernel_secs().unwrap());
            assert!(b >= a, "{a} then {b}");
            let note = kernel_note(&row);
            assert!(
                note.contains("s in the kernel (faulting in fresh memory)"),
                "{note}"
            );
            assert!(note.starts_with(&format!(", {k:.2} s of its ")), "{note}");
        } else {
            assert_eq!(row.first_kernel_secs, None);
            assert_eq!(kernel_note(&row), "");
        }
        assert_eq!(kernel_cell(None), "n/a");
        assert_eq!(kernel_cell(Some(0.4)), "0.400");
    }
}
