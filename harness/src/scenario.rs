//! The scenario: one JSON document that fully determines a run.
//!
//! ```json
//! {
//!   "algorithm": "mutex.centralized", "variant": "correct", "nodes": 4, "seed": 42,
//!   "duration_ms": 2000,
//!   "network": {"latency": {"uniform": {"min_ms": 1, "max_ms": 10}}},
//!   "clocks": {"rho_ppm": 100},
//!   "faults": [{"at_ms": 300, "fault": {"pause": {"node": 2}}},
//!              {"at_ms": 500, "fault": {"resume": {"node": 2}}}],
//!   "workload": [{"at_ms": 10, "node": 1, "input": {"acquire": {"hold_ms": 20}}}],
//!   "expect": "pass"
//! }
//! ```
//!
//! Unknown fields are rejected, and [`Scenario::validate`] rejects impossible values with a
//! message naming the field.

use crate::fault::TimedFault;
use crate::net::NetworkSpec;
pub use crate::workload::WorkloadInput;
use crate::{NodeId, MAX_TIME_MS};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::Path;

/// Which engine executes the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EngineKind {
    /// Sincro's single-threaded discrete-event engine (the fast one).
    #[default]
    Native,
    /// Each node a turmoil host behind a simulated UDP socket.
    Turmoil,
    /// Each node a madsim node over madsim's simulated network (only in builds with
    /// `RUSTFLAGS="--cfg madsim"`; elsewhere selecting it is a [`ScenarioError`]).
    Madsim,
}

impl EngineKind {
    /// Name as in JSON.
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Native => "native",
            EngineKind::Turmoil => "turmoil",
            EngineKind::Madsim => "madsim",
        }
    }
}

/// Per-node clock setup.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeClock {
    /// The node.
    pub node: NodeId,
    /// Initial offset from global time, ms.
    #[serde(default)]
    pub offset_ms: f64,
    /// Drift, parts per million (|drift| <= rho_ppm).
    #[serde(default)]
    pub drift_ppm: f64,
}

/// Clocks of the run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockSpec {
    /// Bound on every clock's drift, ppm. Nodes not listed in `nodes` draw a drift uniformly in
    /// `[-rho_ppm, rho_ppm]` from the seed.
    #[serde(default)]
    pub rho_ppm: f64,
    /// Nodes not listed draw an initial offset uniformly in `[-offset_ms_max, offset_ms_max]`.
    #[serde(default)]
    pub offset_ms_max: f64,
    /// Explicit settings for some nodes.
    #[serde(default)]
    pub nodes: Vec<NodeClock>,
}

/// One workload command: `input` is given to `node` at `at_ms` (global time).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadItem {
    /// When, ms of global time.
    pub at_ms: u64,
    /// To which node.
    pub node: NodeId,
    /// The command, in the algorithm's own input format: JSON, or the typed value the
    /// algorithm's workload generator made ([`WorkloadInput`]).
    pub input: WorkloadInput,
}

/// Knobs of the checkers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckSpec {
    /// Liveness bound: after the faults stop, each pending request must be served within this
    /// many ms. Default: the algorithm's own bound for this scenario.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub liveness_bound_ms: Option<u64>,
    /// Check only these properties (default: every property the algorithm declares).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub properties: Option<Vec<String>>,
}

/// Limits of a run; hitting one ends the run with a `limit_exceeded` verdict (or, for
/// `max_ticks`, refuses the scenario before it runs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Maximum number of engine steps: starts, inputs, faults, timers and deliveries (what
    /// `run` prints as "steps"). A trace holds more events than steps: it also records sends,
    /// drops and observations. The name is kept so scenario files stay valid.
    #[serde(default = "Limits::default_max_events")]
    pub max_events: u64,
    /// Maximum number of messages in flight at once.
    #[serde(default = "Limits::default_max_in_flight")]
    pub max_in_flight: usize,
    /// Maximum size of a recorded trace in memory, bytes (estimated: each event's fixed size
    /// plus its texts). Only runs that record a trace (`replay`, `run --trace`, `show`) count
    /// it. Default 256 MiB.
    #[serde(default = "Limits::default_max_trace_bytes")]
    pub max_trace_bytes: u64,
    /// Maximum number of 1 ms ticks the turmoil engine steps (it steps every tick, busy or
    /// not): a turmoil scenario longer than this many ms is refused before it runs. Default
    /// 1,000,000 (1000 s of simulated time).
    #[serde(default = "Limits::default_max_ticks")]
    pub max_ticks: u64,
    /// Maximum number of messages sent in the whole run, those the network drops included
    /// (a send is work even when nothing arrives: a retry loop over a lossy network never
    /// reaches `max_in_flight` and takes few steps, yet sent 75 million messages in 20,000
    /// steps). Default 100,000,000 (ten per step of `max_events`' default).
    #[serde(default = "Limits::default_max_sent")]
    pub max_sent: u64,
    /// Maximum number of operations (sends, each copy of a broadcast, timers set or
    /// cancelled, observations, clock changes) one callback may ask for. The engine applies
    /// them when the callback returns, so a callback that loops on `send` without end grew
    /// them until the machine's memory was gone (the process aborted, its campaign lost);
    /// now the callback is stopped there and the run ends with `limit_exceeded`. Default
    /// 1,000,000 (a broadcast at the most nodes a scenario may have is 9,999).
    #[serde(default = "Limits::default_max_ops_per_callback")]
    pub max_ops_per_callback: usize,
}

impl Limits {
    /// The most `max_events` may be raised to (100 times its default).
    pub const MAX_EVENTS: u64 = 1_000_000_000;
    /// The most `max_in_flight` may be raised to (100 times its default): about 110 bytes a
    /// message in flight, 1.1 GB (10^8 was taken, and aborted on an allocation near 1.5 GB).
    pub const MAX_IN_FLIGHT: u64 = 10_000_000;
    /// The most `max_trace_bytes` may be raised to, 512 MiB (twice its default): the event
    /// table doubles as it grows, so a trace at the limit takes about twice it while it moves
    /// (at 2 GiB a run aborted asking for 3.5 GB), and its file stays within what `check` and
    /// `show` read back.
    pub const MAX_TRACE_BYTES: u64 = 512 << 20;
    /// The most `max_ticks` may be raised to (10 times its default). Turmoil steps 80,000 to
    /// 200,000 ticks a second at 2 nodes but 15,000 to 25,000 at the 16 nodes where
    /// `max_ticks` is the whole cost limit ([`TURMOIL_REFERENCE_NODES`]), so about 11 minutes
    /// at most; 10^8 (stop 61 to 73) let a 16-node run go on for one to two hours (stop 74's
    /// probe).
    pub const MAX_TICKS: u64 = 10_000_000;
    /// The most `max_sent` may be raised to (100 times its default; a dropped send costs
    /// about 0.3 µs, a delivered one a few, so about an hour at most).
    pub const MAX_SENT: u64 = 10_000_000_000;
    /// The most `max_ops_per_callback` may be raised to (100 times its default: a few GB of
    /// operations waiting to be applied).
    pub const MAX_OPS_PER_CALLBACK: u64 = 100_000_000;

    /// The most messages in flight a generated scenario allows, whatever its node count
    /// ([`Limits::for_nodes`]): about 440 MB of messages.
    pub const GEN_IN_FLIGHT_MAX: usize = 4_000_000;

    /// Messages in flight a generated scenario allows per `n²` ([`Limits::for_nodes`]).
    pub const GEN_IN_FLIGHT_PER_N2: usize = 200;

    /// The node count up to which a generated scenario keeps the default `max_events`;
    /// above it, it grows with `n²` ([`Limits::for_nodes`]).
    pub const GEN_LIMITS_NODES: usize = 31;

    /// The limits of a generated scenario of `nodes` nodes: the defaults, except that
    /// `max_events` grows with `n²` above [`Self::GEN_LIMITS_NODES`] nodes (up to
    /// [`Self::MAX_EVENTS`]) and `max_in_flight` is at least
    /// [`Self::GEN_IN_FLIGHT_PER_N2`]` · n²` (above 22 nodes; up to
    /// [`Self::GEN_IN_FLIGHT_MAX`]). Generated scenarios have 3 to 6 nodes unless
    /// `--nodes-max` says otherwise, so campaigns of the default size keep the defaults. A
    /// protocol that answers every node from every node does `n²` work a round, so fixed
    /// limits are caps a correct algorithm reaches by itself in a large group, and the
    /// campaign reported its correct variant as failing: `order.total` at 50 nodes with 24
    /// multicasts in 40 ms and no fault had 100,000 messages in flight at 254 ms, at 98 nodes
    /// it needed about 1.5 million; `mutex.decentralized` at 141 nodes took 40 million steps
    /// and `clock.ntp-peers` 10.6 million, against the default 10 million. Each passes
    /// within its scaled limits.
    pub fn for_nodes(nodes: usize) -> Limits {
        let n2 = nodes.saturating_mul(nodes);
        let in_flight = n2
            .saturating_mul(Self::GEN_IN_FLIGHT_PER_N2)
            .min(Self::GEN_IN_FLIGHT_MAX);
        let base = Self::default_max_events();
        let reference = (Self::GEN_LIMITS_NODES * Self::GEN_LIMITS_NODES) as u64;
        let events = (base.saturating_mul(n2 as u64) / reference).clamp(base, Self::MAX_EVENTS);
        Limits {
            max_events: events,
            max_in_flight: in_flight.max(Self::default_max_in_flight()),
            ..Limits::default()
        }
    }

    fn default_max_events() -> u64 {
        10_000_000
    }
    fn default_max_in_flight() -> usize {
        100_000
    }
    fn default_max_trace_bytes() -> u64 {
        256 << 20
    }
    fn default_max_ticks() -> u64 {
        1_000_000
    }
    fn default_max_sent() -> u64 {
        100_000_000
    }
    fn default_max_ops_per_callback() -> usize {
        1_000_000
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_events: Self::default_max_events(),
            max_in_flight: Self::default_max_in_flight(),
            max_trace_bytes: Self::default_max_trace_bytes(),
            max_ticks: Self::default_max_ticks(),
            max_sent: Self::default_max_sent(),
            max_ops_per_callback: Self::default_max_ops_per_callback(),
        }
    }
}

/// The largest node count a scenario may have. The network keeps state per node, per link
/// that differs from the default and per link that carried a message (never an `n × n`
/// table), but vector clock stamps (trace files, the causal checkers) hold one entry per node
/// for each node, so a run's bookkeeping still grows with n²: 10,000 nodes keep a stamp table
/// of at most 400 MB, and a trace line of 10,000 numbers.
pub const MAX_NODES: usize = 10_000;

/// The largest node count the turmoil engine runs: it steps every host at every 1 ms tick, at
/// a cost that grows as n³ (256 nodes: 3 s for 30 ms of simulated time here), so a larger run
/// would look like a hang. Below it, a run's length is limited by its cost too
/// ([`TURMOIL_REFERENCE_NODES`]).
pub const MAX_TURMOIL_NODES: usize = 256;

/// The node count at which `limits.max_ticks` is the whole cost limit of a turmoil run: a
/// larger one may run fewer ticks (see [`turmoil_link_visits_per_tick`]).
pub const TURMOIL_REFERENCE_NODES: usize = 16;

/// The links turmoil (0.7) visits at each 1 ms tick of an `n`-node run: it registers a link
/// for every pair of hosts, and each host's step walks every link to find its deliveries, so
/// `n · n(n − 1)/2`, with no message in flight (measured: a 128-node run of 2 s with no
/// message took 22.7 s, a 32-node one 0.61 s; about 5–10 ns a visit).
pub fn turmoil_link_visits_per_tick(n: usize) -> u64 {
    let n = n as u64;
    n * (n * n.saturating_sub(1) / 2)
}

/// The largest scenario file [`Scenario::load`] reads, bytes (64 MiB).
pub const MAX_SCENARIO_BYTES: u64 = 64 << 20;

/// The most JSON values a scenario's text may hold (objects, arrays and the elements after a
/// comma, about one each; counted before anything is parsed). Parsed, each costs up to a few
/// hundred bytes: a 56 MB file of 7 million one-key objects took 4.7 GB before it was refused,
/// and aborted under a memory cap; at this limit such a file takes at most about 350 MB.
pub const MAX_SCENARIO_JSON_VALUES: usize = 1_000_000;

/// About how many JSON values `text` holds: each `{`, `[` and `,` outside strings.
fn json_values(text: &str) -> usize {
    let (mut n, mut in_string, mut escaped) = (0usize, false, false);
    for &b in text.as_bytes() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else {
            match b {
                b'"' => in_string = true,
                b'{' | b'[' | b',' => n += 1,
                _ => {}
            }
        }
    }
    n
}

/// Checks a JSON document before it is parsed as a scenario (or a file holding one): at most
/// [`MAX_SCENARIO_JSON_VALUES`] values.
pub fn check_json_size(text: &str) -> Result<(), ScenarioError> {
    let n = json_values(text);
    if n > MAX_SCENARIO_JSON_VALUES {
        return Err(ScenarioError(format!(
            "invalid scenario: it holds about {n} JSON values (objects, arrays, elements), above \
             the limit of {MAX_SCENARIO_JSON_VALUES} (`scenario::MAX_SCENARIO_JSON_VALUES`)"
        )));
    }
    Ok(())
}

/// Checks that no object of a JSON document has a key twice (`serde_json` lets the last win).
pub fn check_no_duplicate_keys(text: &str) -> Result<(), ScenarioError> {
    serde_json::from_str::<NoDuplicateKeys>(text)
        .map(|_| ())
        .map_err(|e| ScenarioError(format!("invalid scenario: {e}")))
}

/// Most faults a scenario may list.
pub const MAX_FAULTS: usize = 10_000;

/// Most entries the partitions of a scenario may keep: partitions × nodes (each partition is
/// kept for the whole run, one entry per node).
pub const MAX_PARTITION_ENTRIES: usize = 10_000_000;

/// The largest clock drift bound a scenario may declare, ppm (`clocks.rho_ppm`): a clock at
/// −10⁶ ppm stands still, one below it would run backwards.
pub const MAX_RHO_PPM: f64 = 1_000_000.0;

/// The verdict a corpus scenario must reach.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Expect {
    /// No property is violated.
    Pass,
    /// This property is violated.
    Violation(String),
    /// This property could not be judged (the run ends before it can be: `Verdict::Unjudged`,
    /// exit 6), e.g. a scenario that shows a liveness bound the run is too short for.
    Unjudged(String),
    /// The algorithm panics.
    Panic,
}

impl Expect {
    /// Whether `verdict` is this expectation: a pass, a violation of this very property, this
    /// very property left unjudged, or a panic.
    pub fn matches(&self, verdict: &crate::engine::Verdict) -> bool {
        use crate::engine::Verdict;
        match (self, verdict) {
            (Expect::Pass, Verdict::Pass) => true,
            (Expect::Violation(p), Verdict::Violation(v)) => *p == v.property,
            (Expect::Unjudged(p), Verdict::Unjudged { property, .. }) => p == property,
            (Expect::Panic, Verdict::Panic { .. }) => true,
            _ => false,
        }
    }
}

impl std::fmt::Display for Expect {
    /// `pass`, `a violation of P`, `P left unjudged`, `a panic`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Expect::Pass => write!(f, "pass"),
            Expect::Violation(p) => write!(f, "a violation of {p}"),
            Expect::Unjudged(p) => write!(f, "{p} left unjudged"),
            Expect::Panic => write!(f, "a panic"),
        }
    }
}

/// One run, fully determined.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Short name (used for snapshots).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// What the scenario shows.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Registered algorithm name, e.g. `mutex.centralized` (see `sincro list`).
    pub algorithm: String,
    /// Variant of the algorithm (`correct` unless named).
    #[serde(default = "Scenario::default_variant")]
    pub variant: String,
    /// The algorithm's own parameters.
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub params: serde_json::Value,
    /// Number of nodes.
    pub nodes: usize,
    /// The seed every random draw of the run derives from.
    pub seed: u64,
    /// Engine.
    #[serde(default, skip_serializing_if = "is_default")]
    pub engine: EngineKind,
    /// Length of the run, ms of global time.
    pub duration_ms: u64,
    /// Network model.
    #[serde(default, skip_serializing_if = "is_default")]
    pub network: NetworkSpec,
    /// How concurrent deliveries are ordered inside the links' latency bounds (see
    /// [`crate::schedule`]); `random` (every delay drawn from its link's law) by default.
    #[serde(default, skip_serializing_if = "is_default")]
    pub schedule: crate::schedule::Schedule,
    /// Clocks.
    #[serde(default, skip_serializing_if = "is_default")]
    pub clocks: ClockSpec,
    /// The fault plan.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub faults: Vec<TimedFault>,
    /// Workload commands.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub workload: Vec<WorkloadItem>,
    /// Checker knobs.
    #[serde(default, skip_serializing_if = "is_default")]
    pub checks: CheckSpec,
    /// Run limits.
    #[serde(default, skip_serializing_if = "is_default")]
    pub limits: Limits,
    /// Expected verdict (corpus scenarios).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Expect>,
    /// Engines on which this scenario legitimately reaches another verdict than `expect`
    /// because of their timing (e.g. turmoil's latency quantized to its 1 ms tick, madsim's
    /// 2 ms transport floor), each with that verdict and the reason. The engine agreement test
    /// (`tests/it/engines.rs`) accepts exactly that verdict on that engine, and nothing else.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub engine_exceptions: Vec<EngineException>,
}

/// A corpus scenario's documented disagreement on one engine (see
/// [`Scenario::engine_exceptions`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineException {
    /// The engine.
    pub engine: EngineKind,
    /// The verdict the scenario reaches there.
    pub verdict: Expect,
    /// Why its timing changes the verdict (required, non-empty).
    pub reason: String,
}

/// Rejects any number of `v` under a key ending in `_ms` (or named `ms`) that is negative or
/// above [`MAX_TIME_MS`]: times in `params` and in workload inputs, whatever the algorithm.
/// `path` names `v` (`workload[3].input`; the error adds the rest: `.acquire.hold_ms`), and is
/// called only on error.
fn check_times(v: &serde_json::Value, path: impl FnOnce() -> String) -> Result<(), ScenarioError> {
    match bad_time(v) {
        None => Ok(()),
        Some((below, n)) => Err(ScenarioError(format!(
            "{}{below} = {n} is outside [0, {MAX_TIME_MS}] ms (the limit on any time)",
            path()
        ))),
    }
}

/// The first time field under `v` outside `[0, MAX_TIME_MS]`: its path below `v` and its
/// value. Builds no string unless one is found (every run validates its workload).
pub(crate) fn bad_time(v: &serde_json::Value) -> Option<(String, serde_json::Number)> {
    use serde_json::Value;
    match v {
        Value::Object(m) => m.iter().find_map(|(k, x)| {
            if k == "ms" || k.ends_with("_ms") {
                if let Value::Number(n) = x {
                    let ok = n.as_u64().is_some_and(|t| t <= MAX_TIME_MS)
                        || n.as_f64()
                            .is_some_and(|t| (0.0..=MAX_TIME_MS as f64).contains(&t));
                    if !ok {
                        return Some((format!(".{k}"), n.clone()));
                    }
                }
            }
            bad_time(x).map(|(below, n)| (format!(".{k}{below}"), n))
        }),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .find_map(|(i, x)| bad_time(x).map(|(below, n)| (format!("[{i}]{below}"), n))),
        _ => None,
    }
}

/// Whether `c` is a character a message must not print raw: a control character (it acts on
/// the terminal), a line separator, or a bidirectional mark (it makes a name read as
/// another); the timeline's own rule ([`crate::render`]).
pub fn hidden_char(c: char) -> bool {
    crate::render::unsafe_on_a_line(c)
}

/// `text` (a name given by the user: a file, a variant) for a message, its [`hidden_char`]s
/// escaped as Rust writes them (`\u{1b}`, `\n`), as the timeline escapes a message's text.
pub fn shown_text(text: &str) -> String {
    crate::render::one_line(text).into_owned()
}

/// `path` for a message: as [`Path::display`] shows it, its [`hidden_char`]s escaped, so a
/// file's name cannot act on the terminal or pass for another.
pub fn shown(path: &Path) -> String {
    shown_text(&path.to_string_lossy())
}

/// Reads at most `max` bytes of `path` as UTF-8; a longer file is an error saying so (the whole
/// file is never read: `/dev/zero` fails at once).
pub fn read_limited(path: &Path, max: u64) -> std::io::Result<String> {
    use std::io::Read;
    let f = open_input(path)?;
    let meta = f.metadata()?;
    if meta.is_dir() {
        return Err(std::io::Error::other("it is a directory"));
    }
    let too_large = || std::io::Error::other(format!("larger than the limit of {max} bytes"));
    // A regular file says its size: refused before a gigabyte is read into memory. Other
    // files (a pipe, /dev/zero) are read up to the limit.
    if meta.is_file() && meta.len() > max {
        return Err(too_large());
    }
    let mut buf = Vec::new();
    read_waiting(f.take(max + 1), &mut buf, PIPE_WAIT)?;
    if buf.len() as u64 > max {
        return Err(too_large());
    }
    #[cfg(unix)]
    if buf.is_empty() && std::os::unix::fs::FileTypeExt::is_fifo(&meta.file_type()) {
        return Err(std::io::Error::other(
            "a FIFO with no writer: nothing to read (start its writer first)",
        ));
    }
    // A byte-order mark (some Windows editors write one) is no part of the JSON.
    if buf.starts_with(b"\xEF\xBB\xBF") {
        buf.drain(..3);
    }
    String::from_utf8(buf).map_err(|e| {
        // Where: the line and the byte (a trace of a million lines said only "not UTF-8").
        let at = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let line = 1 + bytes[..at].iter().filter(|&&b| b == b'\n').count();
        std::io::Error::other(format!(
            "not UTF-8 text: line {line} holds the byte 0x{:02x}",
            bytes[at]
        ))
    })
}

/// How long an input that is a pipe may go without data before it is given up on.
const PIPE_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// Opens `path` to read. A FIFO is opened without blocking: with no writer, a blocking `open`
/// waited for ever (stop 67's probe: `mkfifo f.json; sincro run f.json` hung); with one (a
/// shell's `<(…)`) it reads as before, [`read_waiting`] waiting for its data.
fn open_input(path: &Path) -> std::io::Result<std::fs::File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
        if std::fs::metadata(path)?.file_type().is_fifo() {
            return std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(path);
        }
    }
    std::fs::File::open(path)
}

/// Opens `path` for writing when it is a FIFO (`None` when it is not), without waiting for a
/// reader: a FIFO no program reads is an error saying so at once, where a plain open waits
/// for a reader forever (`sincro run --trace FIFO` hung with no message, stop 72's probe).
/// The file returned blocks on its writes, as a pipe's writer does. Keep it open until the
/// whole text is written: closing it ends the reader's input (`cat` exits there).
pub fn open_fifo_for_writing(path: &Path) -> Option<std::io::Result<std::fs::File>> {
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
        if !std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo()) {
            return None;
        }
        let opened = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path);
        Some(match opened {
            Err(e) if e.raw_os_error() == Some(libc::ENXIO) => Err(std::io::Error::other(
                "a FIFO with no reader (start its reader first)",
            )),
            Err(e) => Err(e),
            Ok(f) => {
                // SAFETY: F_GETFL and F_SETFL only read and set the open file's status flags,
                // on a descriptor this function owns.
                let fd = f.as_raw_fd();
                let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
                if flags == -1
                    || unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } == -1
                {
                    Err(std::io::Error::last_os_error())
                } else {
                    Ok(f)
                }
            }
        })
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// Reads `r` to its end into `buf`. A read that would block (a pipe opened without blocking,
/// its writer not done) is retried every 10 ms, for at most `wait` without data; then it is
/// an error saying so. A FIFO with no writer reads as empty.
fn read_waiting(
    mut r: impl std::io::Read,
    buf: &mut Vec<u8>,
    wait: std::time::Duration,
) -> std::io::Result<()> {
    let mut chunk = [0u8; 64 * 1024];
    let mut idle = std::time::Duration::ZERO;
    let step = std::time::Duration::from_millis(10);
    loop {
        match r.read(&mut chunk) {
            Ok(0) => return Ok(()),
            Ok(n) => {
                buf.extend_from_slice(&chunk[..n]);
                idle = std::time::Duration::ZERO;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if idle >= wait {
                    return Err(std::io::Error::other(format!(
                        "a pipe that sent nothing for {} s",
                        wait.as_secs()
                    )));
                }
                std::thread::sleep(step);
                idle += step;
            }
            Err(e) => return Err(e),
        }
    }
}

/// Written scenario files leave out what is default.
fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

/// A scenario that cannot be run, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError(pub String);

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ScenarioError {}

/// Where in `text` a scenario fails to deserialize, for the fields whose errors serde reports
/// by position only (an empty `{}` where a fault or an expectation goes was "expected value
/// at line 1 column 755"): the path of the first entry that does not read, what it failed
/// with, and how such an entry is written. `None` when the text is not JSON, or the failure
/// is elsewhere.
fn locate_error(text: &str) -> Option<String> {
    use serde::de::DeserializeOwned;
    fn check<T: DeserializeOwned>(v: &serde_json::Value, path: &str, how: &str) -> Option<String> {
        T::deserialize(v)
            .err()
            .map(|e| format!("{path}: {e}; {how}"))
    }
    const FAULT: &str = "a fault is written {\"crash\": {\"node\": 1}}, \"heal\", \
                         {\"partition\": {\"groups\": [[0]]}}, ... (one kind per fault)";
    const EXPECT: &str =
        "expect is \"pass\", \"panic\", {\"violation\": \"P\"} or {\"unjudged\": \"P\"}";
    const SCHEDULE: &str = "schedule is \"random\", \"pos\", \
                            {\"pct\": {\"priorities\": [2, 0, 1], \"change_points_ms\": [40]}} \
                            or {\"recorded\": [...]}";
    let doc: serde_json::Value = serde_json::from_str(text).ok()?;
    // serde reads a struct from an array too, field by field ("[0]: invalid type: integer
    // `1`, expected a string"): a document that is not an object is said to be one.
    let shape = match &doc {
        serde_json::Value::Object(_) => None,
        serde_json::Value::Array(_) => Some("an array"),
        serde_json::Value::String(_) => Some("a string"),
        serde_json::Value::Number(_) => Some("a number"),
        serde_json::Value::Bool(_) => Some("a boolean"),
        serde_json::Value::Null => Some("null"),
    };
    if let Some(shape) = shape {
        return Some(format!(
            "the document is {shape}; a scenario is one JSON object, \
             {{\"algorithm\": \"mutex.centralized\", \"nodes\": 3, \"seed\": 1, \"duration_ms\": 1000, ...}}"
        ));
    }
    if doc.get("scenario").is_some() && doc.get("schedule").is_some() {
        return Some(
            "this is a counterexample written by `explore` (a scenario and a schedule), not a \
             scenario: replay it with `sincro explore --replay FILE`, or run the \
             `.explore.native.json` written beside it"
                .into(),
        );
    }
    if let Some(faults) = doc.get("faults").and_then(|f| f.as_array()) {
        for (i, f) in faults.iter().enumerate() {
            if let Some(e) = check::<TimedFault>(f, &format!("faults[{i}]"), FAULT) {
                return Some(e);
            }
        }
    }
    if let Some(e) = doc
        .get("schedule")
        .filter(|v| !v.is_null())
        .and_then(|v| check::<crate::schedule::Schedule>(v, "schedule", SCHEDULE))
    {
        return Some(e);
    }
    if let Some(e) = doc
        .get("expect")
        .filter(|v| !v.is_null())
        .and_then(|v| check::<Expect>(v, "expect", EXPECT))
    {
        return Some(e);
    }
    let edges = doc.pointer("/network/topology/graph/edges");
    for (i, edge) in edges
        .and_then(|e| e.as_array())
        .into_iter()
        .flatten()
        .enumerate()
    {
        let pair = edge.as_array().filter(|e| e.len() == 2);
        if !pair.is_some_and(|e| e.iter().all(|x| x.as_u64().is_some())) {
            return Some(format!(
                "network.topology.graph.edges[{i}] = {edge}: an edge is two node numbers, [a, b]"
            ));
        }
    }
    if let Some(items) = doc.get("workload").and_then(|w| w.as_array()) {
        for (i, w) in items.iter().enumerate() {
            let how = "a workload item is {\"at_ms\": T, \"node\": N, \"input\": ...}";
            if let Some(e) = check::<WorkloadItem>(w, &format!("workload[{i}]"), how) {
                return Some(e);
            }
        }
    }
    None
}

impl Scenario {
    fn default_variant() -> String {
        "correct".into()
    }

    /// Parses and validates a scenario from JSON text.
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        check_json_size(text)?;
        let mut json = serde_json::Deserializer::from_str(text);
        let mut sc: Scenario = serde_path_to_error::deserialize(&mut json).map_err(|e| {
            let (line, column) = (e.inner().line(), e.inner().column());
            // serde_json reads a whole number past the largest u64 as a float: said so, not
            // only "floating point" of a number written without a point (stop 65's probe).
            let inner = e.inner().to_string();
            // The float read, when that is the error: `1.5`, `-0.0` and `1e3` are not numbers
            // past the largest (stop 67's probe), only a whole one that big is.
            let float = inner
                .split_once("invalid type: floating point `")
                .and_then(|(_, rest)| rest.split_once('`'))
                .and_then(|(v, _)| v.parse::<f64>().ok());
            let hint = match float {
                Some(v)
                    if inner.contains("u64") && v >= 18446744073709551615.0 && v.fract() == 0.0 =>
                {
                    " (a whole number above 18446744073709551615, the largest this field holds, \
                     is read as a floating-point number)"
                }
                Some(_) => {
                    " (this field holds a whole number, written without a point or an \
                            exponent)"
                }
                None => "",
            };
            ScenarioError(match locate_error(text) {
                Some(at) => format!("invalid scenario: {at} (line {line}, column {column})"),
                // The field, as a path (`clocks.nodes[0].offset_ms`): serde_json's own message
                // names only a line and a column.
                None => match e.path().to_string() {
                    p if p == "." => format!("invalid scenario: {inner}{hint}"),
                    p => format!("invalid scenario: {p}: {inner}{hint}"),
                },
            })
        })?;
        json.end()
            .map_err(|e| ScenarioError(format!("invalid scenario: {e}")))?;
        // The scenario's own fields refuse a duplicate, but `params` and the inputs are read
        // as free JSON, where the last of two equal keys would silently win.
        check_no_duplicate_keys(text)?;
        // Validated as listed, so that an error's `faults[i]` is the file's i-th fault.
        sc.validate()?;
        // The plan may be listed in any order; every engine applies it in time order, faults
        // of one instant in the order listed. Read that way once, here, so that whatever reads
        // the plan later (a checker's bound, the liveness window) reads what the run does.
        sc.faults.sort_by_key(|f| f.at_ms); // stable
        Ok(sc)
    }

    /// Reads, parses and validates a scenario file (at most [`MAX_SCENARIO_BYTES`]); an error
    /// names the file with its control characters escaped (a name could clear the screen).
    pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
        let text = read_limited(path, MAX_SCENARIO_BYTES)
            .map_err(|e| ScenarioError(format!("cannot read scenario {}: {e}", shown(path))))?;
        Scenario::from_json(&text).map_err(|e| {
            // A trace's header is a short line: a long first line (a whole scenario on one
            // line) is not parsed again, which took 2 GB to say a file was too large.
            let first = text.lines().next().unwrap_or_default();
            let is_trace = first.len() <= 4096
                && serde_json::from_str::<serde_json::Value>(first)
                    .is_ok_and(|v| v.get("sincro_trace").is_some());
            ScenarioError(if is_trace {
                format!(
                    "{}: this is a trace (JSON Lines), not a scenario; `sincro show`, `check` \
                     and `diff` read traces",
                    shown(path)
                )
            } else {
                format!("{}: {}", shown(path), e.0)
            })
        })
    }

    /// The time of its last workload input or planned fault, ms (0 when it has neither):
    /// where what the scenario makes happen ends.
    pub fn last_planned_ms(&self) -> u64 {
        self.faults
            .iter()
            .map(|f| f.at_ms)
            .chain(self.workload.iter().map(|w| w.at_ms))
            .max()
            .unwrap_or(0)
    }

    /// The scenario as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a scenario always serializes")
    }

    /// Rejects impossible values, naming the field.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        let err = |m: String| Err(ScenarioError(m));
        if self.nodes == 0 {
            return err("nodes must be at least 1".into());
        }
        for (i, x) in self.engine_exceptions.iter().enumerate() {
            if x.reason.trim().is_empty() {
                return err(format!("engine_exceptions[{i}].reason must say why"));
            }
            if self.engine_exceptions[..i]
                .iter()
                .any(|y| y.engine == x.engine)
            {
                return err(format!(
                    "engine_exceptions[{i}]: a second entry for engine {}",
                    x.engine.name()
                ));
            }
        }
        if self.nodes > MAX_NODES {
            return err(format!(
                "nodes = {} is above the limit of {MAX_NODES} (vector clock stamps keep one \
                 entry per node for each node)",
                self.nodes
            ));
        }
        if self.duration_ms == 0 {
            return err("duration_ms must be at least 1".into());
        }
        if self.duration_ms > MAX_TIME_MS {
            return err(format!(
                "duration_ms = {} is above the limit of {MAX_TIME_MS} ms",
                self.duration_ms
            ));
        }
        self.network
            .validate(self.nodes)
            .map_err(|e| ScenarioError(format!("network: {e}")))?;
        self.schedule.validate(self.nodes).map_err(ScenarioError)?;
        if self.engine == EngineKind::Turmoil && !self.schedule.is_random() {
            return err(format!(
                "schedule {} needs the native or madsim engine: turmoil draws every latency \
                 itself (use schedule random, or another engine)",
                self.schedule.label()
            ));
        }
        let c = &self.clocks;
        let max_ms = MAX_TIME_MS as f64;
        if !(c.rho_ppm.is_finite() && (0.0..=MAX_RHO_PPM).contains(&c.rho_ppm)) {
            return err(format!(
                "clocks.rho_ppm must be within [0, 1e6], got {}",
                crate::show_f64(c.rho_ppm)
            ));
        }
        if !(c.offset_ms_max.is_finite() && (0.0..=max_ms).contains(&c.offset_ms_max)) {
            return err(format!(
                "clocks.offset_ms_max must be within [0, {MAX_TIME_MS}] ms, got {}",
                crate::show_f64(c.offset_ms_max)
            ));
        }
        for (i, nc) in c.nodes.iter().enumerate() {
            if nc.node >= self.nodes {
                return err(format!(
                    "clocks.nodes[{i}].node = {} does not exist (nodes = {})",
                    nc.node, self.nodes
                ));
            }
            if let Some(j) = c.nodes[..i].iter().position(|o| o.node == nc.node) {
                return err(format!(
                    "clocks.nodes[{i}].node = {} is set twice (clocks.nodes[{j}] sets it too)",
                    nc.node
                ));
            }
            if !(nc.offset_ms.is_finite() && nc.offset_ms.abs() <= max_ms) {
                return err(format!(
                    "clocks.nodes[{i}].offset_ms = {} is outside [-{MAX_TIME_MS}, {MAX_TIME_MS}] ms",
                    crate::show_f64(nc.offset_ms)
                ));
            }
            if !(nc.drift_ppm.is_finite() && nc.drift_ppm.abs() <= c.rho_ppm) {
                return err(format!(
                    "clocks.nodes[{i}].drift_ppm = {} exceeds the bound clocks.rho_ppm = {}",
                    crate::show_f64(nc.drift_ppm),
                    crate::show_f64(c.rho_ppm)
                ));
            }
        }
        if self.faults.len() > MAX_FAULTS {
            return err(format!(
                "faults lists {} faults, above the limit of {MAX_FAULTS}",
                self.faults.len()
            ));
        }
        // A partition is kept for the whole run (a message sent before it is judged against
        // it): one entry per node each. 100,000 empty partitions of 1,000 nodes took 473 MB.
        let partitions = self
            .faults
            .iter()
            .filter(|f| {
                matches!(
                    f.fault,
                    crate::Fault::Partition { .. } | crate::Fault::PartitionOneway { .. }
                )
            })
            .count();
        if partitions.saturating_mul(self.nodes) > MAX_PARTITION_ENTRIES {
            return err(format!(
                "faults: {partitions} partitions of {} nodes keep {} entries, above the limit of \
                 {MAX_PARTITION_ENTRIES} (fewer partitions, or fewer nodes)",
                self.nodes,
                partitions.saturating_mul(self.nodes)
            ));
        }
        for (i, f) in self.faults.iter().enumerate() {
            if f.at_ms > self.duration_ms {
                return err(format!(
                    "faults[{i}].at_ms = {} is after duration_ms = {}",
                    f.at_ms, self.duration_ms
                ));
            }
            f.fault
                .validate(self.nodes, c.rho_ppm)
                .map_err(|e| ScenarioError(format!("faults[{i}]: {e}")))?;
        }
        // Each jump is bounded, and so is their sum at one node: 10,000 jumps of 10⁹ ms
        // wrapped the clock past i64 (pinned at its end), and the run passed.
        let mut jumped_ms = vec![0f64; self.nodes];
        for f in &self.faults {
            if let crate::Fault::ClockJump { node, delta_ms } = f.fault {
                if let Some(sum) = jumped_ms.get_mut(node) {
                    *sum += delta_ms.abs();
                }
            }
        }
        if let Some((node, sum)) = jumped_ms.iter().enumerate().find(|(_, &sum)| sum > max_ms) {
            return err(format!(
                "faults: the clock jumps of node {node} add up to {} ms (their sizes, back or \
                 forward), above the limit on any time ({max_ms} ms)",
                crate::show_f64(*sum)
            ));
        }
        for (i, w) in self.workload.iter().enumerate() {
            if w.node >= self.nodes {
                return err(format!(
                    "workload[{i}].node = {} does not exist (nodes = {})",
                    w.node, self.nodes
                ));
            }
            if w.at_ms > self.duration_ms {
                return err(format!(
                    "workload[{i}].at_ms = {} is after duration_ms = {}",
                    w.at_ms, self.duration_ms
                ));
            }
            // a typed input is walked as it is, its JSON made only to name a bad time
            if w.input.has_bad_time(|v| bad_time(v).is_some()) {
                match w.input.try_json() {
                    Ok(v) => check_times(v, || format!("workload[{i}].input"))?,
                    Err(e) => {
                        return err(format!(
                            "workload[{i}].input does not serialize to JSON: {e}"
                        ))
                    }
                }
            }
        }
        check_times(&self.params, || "params".into())?;
        if let Some(p) = self.checks.properties.as_ref().and_then(|ps| {
            ps.iter()
                .enumerate()
                .find(|(i, p)| ps[..*i].contains(p))
                .map(|(_, p)| p)
        }) {
            return err(format!("checks.properties names `{p}` twice"));
        }
        if self.checks.properties.as_ref().is_some_and(Vec::is_empty) {
            return err(
                "checks.properties is empty: the run would judge nothing and pass; name \
                 at least one property, or leave it out to judge every promised one"
                    .into(),
            );
        }
        if let Some(b) = self.checks.liveness_bound_ms {
            // A bound of 0 asks every request to be served at its own instant: every
            // algorithm "violates" liveness at once.
            if b == 0 {
                return err(
                    "checks.liveness_bound_ms = 0: a request can never be served within 0 ms \
                     of itself; give at least 1, or leave it out for the algorithm's own bound"
                        .into(),
                );
            }
            if b > MAX_TIME_MS {
                return err(format!(
                    "checks.liveness_bound_ms = {b} is above the limit of {MAX_TIME_MS} ms"
                ));
            }
        }
        let l = &self.limits;
        let limits = [
            ("max_events", l.max_events, Limits::MAX_EVENTS),
            (
                "max_in_flight",
                l.max_in_flight as u64,
                Limits::MAX_IN_FLIGHT,
            ),
            (
                "max_trace_bytes",
                l.max_trace_bytes,
                Limits::MAX_TRACE_BYTES,
            ),
            ("max_ticks", l.max_ticks, Limits::MAX_TICKS),
            ("max_sent", l.max_sent, Limits::MAX_SENT),
            (
                "max_ops_per_callback",
                l.max_ops_per_callback as u64,
                Limits::MAX_OPS_PER_CALLBACK,
            ),
        ];
        for (name, v, most) in limits {
            if v == 0 {
                return err(format!("limits.{name} = 0: each limit must be at least 1"));
            }
            if v > most {
                return err(format!(
                    "limits.{name} = {v} is above {most}, the most a scenario may raise it to \
                     (a limit is there to stop a run that would take the machine's memory or \
                     hours)"
                ));
            }
        }
        if self.engine == EngineKind::Turmoil && self.nodes > MAX_TURMOIL_NODES {
            return err(format!(
                "nodes = {} is above the turmoil engine's limit of {MAX_TURMOIL_NODES} (it runs \
                 every host at every 1 ms tick; use the native engine)",
                self.nodes
            ));
        }
        if self.engine == EngineKind::Turmoil && self.duration_ms > l.max_ticks {
            return err(format!(
                "duration_ms = {} needs {} turmoil ticks of 1 ms, above limits.max_ticks = {} \
                 (raise limits.max_ticks, or run on the native engine)",
                self.duration_ms, self.duration_ms, l.max_ticks
            ));
        }
        if self.engine == EngineKind::Turmoil {
            self.validate_turmoil_cost()?;
        }
        Ok(())
    }

    /// Refuses a turmoil run whose link visits ([`turmoil_link_visits_per_tick`]) over its
    /// ticks pass what `limits.max_ticks` allows at [`TURMOIL_REFERENCE_NODES`] nodes: a
    /// 256-node election of 1,000 s passed `max_ticks` and would have run for about a day.
    fn validate_turmoil_cost(&self) -> Result<(), ScenarioError> {
        let per_tick = turmoil_link_visits_per_tick(self.nodes);
        let budget = u128::from(self.limits.max_ticks)
            * u128::from(turmoil_link_visits_per_tick(TURMOIL_REFERENCE_NODES));
        let cost = u128::from(self.duration_ms) * u128::from(per_tick);
        if cost <= budget {
            return Ok(());
        }
        let longest_ms = budget / u128::from(per_tick.max(1));
        Err(ScenarioError(format!(
            "nodes = {} for duration_ms = {} is too costly on turmoil: at every 1 ms tick it \
             visits each of its n(n - 1)/2 links for each of its n hosts, {per_tick} a tick, \
             {cost} in the run, above the {budget} that limits.max_ticks = {} allows (its ticks \
             at {TURMOIL_REFERENCE_NODES} nodes): at {} nodes run at most {longest_ms} ms, raise \
             limits.max_ticks, or use the native or madsim engine",
            self.nodes, self.duration_ms, self.limits.max_ticks, self.nodes
        )))
    }

    /// The fault classes the plan uses: each fault's [`Fault::class`](crate::Fault::class),
    /// except that a crash no later restart of its node undoes is
    /// [`FaultClass::CrashStop`](crate::fault::FaultClass::CrashStop), and a `set_links` whose
    /// latency can go past the network's own bound is
    /// [`FaultClass::DelaySpikes`](crate::fault::FaultClass::DelaySpikes) (a failure found
    /// with spikes, shrunk to its `set_links`, counted as plain delays and failed the model's
    /// own test for ever, stop 73's probe).
    pub fn fault_classes(&self) -> std::collections::BTreeSet<crate::fault::FaultClass> {
        use crate::fault::{Fault, FaultClass};
        let mut classes = std::collections::BTreeSet::new();
        for (i, f) in self.faults.iter().enumerate() {
            let class = match f.fault {
                Fault::Crash { node } => {
                    let restarted = self.faults[i + 1..]
                        .iter()
                        .any(|g| g.fault == Fault::Restart { node });
                    if restarted {
                        FaultClass::Crashes
                    } else {
                        FaultClass::CrashStop
                    }
                }
                Fault::SetLinks(ref o)
                    if f.fault.class() == FaultClass::Delays
                        && o.latency
                            .as_ref()
                            .is_some_and(|l| l.max_ns() > self.network.latency.max_ns()) =>
                {
                    FaultClass::DelaySpikes
                }
                _ => f.fault.class(),
            };
            classes.insert(class);
        }
        classes
    }

    /// Every fault class the scenario exercises: its plan's ([`Scenario::fault_classes`]), and
    /// those its network and clocks draw with no fault in the plan: loss, duplication and
    /// reordering on any link, clock drift. (A generated scenario with loss has it in
    /// `network.loss`; its plan only restores the links at the end of the faults.)
    pub fn classes_in_use(&self) -> std::collections::BTreeSet<crate::fault::FaultClass> {
        use crate::fault::FaultClass;
        let mut classes = self.fault_classes();
        let net = &self.network;
        let drawn = |base: f64, of: fn(&crate::net::LinkOverride) -> Option<f64>| {
            base > 0.0 || net.links.iter().any(|o| of(o).is_some_and(|p| p > 0.0))
        };
        for (on, class) in [
            (drawn(net.loss, |o| o.loss), FaultClass::Loss),
            (
                drawn(net.duplicate, |o| o.duplicate),
                FaultClass::Duplication,
            ),
            (drawn(net.reorder, |o| o.reorder), FaultClass::Reordering),
            (
                self.clocks.rho_ppm > 0.0 || self.clocks.nodes.iter().any(|c| c.drift_ppm != 0.0),
                FaultClass::ClockDrift,
            ),
        ] {
            if on {
                classes.insert(class);
            }
        }
        classes
    }

    /// The scenario as its file gives it back: each workload input made from a typed value
    /// ([`WorkloadInput::typed`]) keeps its JSON only. A failure is shrunk and written in this
    /// form, so that what is verified is what `replay` will run.
    pub fn forget_typed_inputs(&mut self) {
        for w in &mut self.workload {
            w.input.forget_typed();
        }
    }

    /// Global time (ms) after which the fault plan does nothing more: liveness is judged from
    /// here. A pause never resumed, a partition never healed or a link that still loses
    /// messages ([`Scenario::loses_at_the_end`]) is still in effect when the run ends, so the
    /// faults stop no earlier than the end (`duration_ms`): a liveness
    /// property cannot be judged "after the faults stopped" at the pause's own time (a
    /// correct mutex with a node paused for good was called a violation from 20 ms on). A
    /// crash with no restart is a crash-stop, which the models that tolerate it judge among
    /// the live nodes: it ends nothing later.
    pub fn quiet_from_ms(&self) -> u64 {
        let last = self.faults.iter().map(|f| f.at_ms).max().unwrap_or(0);
        if self.a_fault_outlasts_the_run() {
            last.max(self.duration_ms)
        } else {
            last
        }
    }

    /// Whether a pause is never resumed, a partition never healed, or a link still loses
    /// messages when the run ends.
    fn a_fault_outlasts_the_run(&self) -> bool {
        self.with_faults_in_time_order(|plan| {
            crate::fault::in_effect_at_the_end(plan.map(|f| &f.fault))
        }) || self.loses_at_the_end()
    }

    /// `f` of the plan's faults in time order (a stable sort: faults of one time keep the
    /// plan's order), sorted only when they are not in that order already (a generated plan
    /// is: generation asks this of every plan it proposes).
    fn with_faults_in_time_order<'a, R>(
        &'a self,
        f: impl FnOnce(&mut dyn Iterator<Item = &'a TimedFault>) -> R,
    ) -> R {
        if self.faults.is_sorted_by_key(|f| f.at_ms) {
            return f(&mut self.faults.iter());
        }
        let mut plan: Vec<&TimedFault> = self.faults.iter().collect();
        plan.sort_by_key(|f| f.at_ms);
        f(&mut plan.into_iter())
    }

    /// Whether some link still loses messages (a loss probability above 0) when the run
    /// ends: the network's own loss, its `links` overrides and the plan's `set_links`, each
    /// in the order they apply. Loss that never stops is a fault that never stops, as a
    /// partition never healed is: liveness cannot be judged "after the faults stopped" (a
    /// correct election under `network.loss: 0.5` was blamed from 0 ms on).
    pub fn loses_at_the_end(&self) -> bool {
        let net = &self.network;
        fn set_links(f: &TimedFault) -> Option<&crate::net::LinkOverride> {
            match &f.fault {
                crate::Fault::SetLinks(o) => Some(o),
                _ => None,
            }
        }
        // No loss anywhere, whatever the order (the usual case): nothing to sort.
        let lossless = |o: &crate::net::LinkOverride| o.loss.is_none_or(|p| p <= 0.0);
        if net.loss <= 0.0
            && net.links.iter().all(lossless)
            && self.faults.iter().filter_map(set_links).all(lossless)
        {
            return false;
        }
        let overrides: Vec<(Option<usize>, Option<usize>, f64)> =
            self.with_faults_in_time_order(|plan| {
                net.links
                    .iter()
                    .chain(plan.filter_map(set_links))
                    .filter_map(|o| o.loss.map(|p| (o.from, o.to, p)))
                    .collect()
            });
        // A link's loss is the last override naming it, else the network's: the nodes no
        // override names all behave alike, so one of them stands for the rest.
        let named: std::collections::BTreeSet<usize> = overrides
            .iter()
            .flat_map(|o| [o.0, o.1])
            .flatten()
            .collect();
        let mut nodes: Vec<usize> = named.iter().copied().filter(|&v| v < self.nodes).collect();
        nodes.extend((0..self.nodes).filter(|v| !named.contains(v)).take(2));
        let loss_of = |a: usize, b: usize| {
            overrides
                .iter()
                .rev()
                .find(|o| o.0.is_none_or(|f| f == a) && o.1.is_none_or(|t| t == b))
                .map_or(net.loss, |o| o.2)
        };
        nodes
            .iter()
            .any(|&a| nodes.iter().any(|&b| a != b && loss_of(a, b) > 0.0))
    }
}

/// Any JSON value, read only to refuse an object with two equal keys anywhere inside it
/// (`{"lease_ms": 50, "lease_ms": 5000}` in `params`), naming the key and where.
struct NoDuplicateKeys;

impl<'de> Deserialize<'de> for NoDuplicateKeys {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NoDuplicateKeys)
    }
}

impl<'de> serde::de::Visitor<'de> for NoDuplicateKeys {
    type Value = NoDuplicateKeys;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self, A::Error> {
        let mut keys = std::collections::BTreeSet::new();
        while let Some(key) = map.next_key::<String>()? {
            map.next_value::<NoDuplicateKeys>()?;
            if let Some(key) = keys.replace(key) {
                return Err(serde::de::Error::custom(format!(
                    "duplicate key `{key}` in one object (the last would silently win)"
                )));
            }
        }
        Ok(self)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self, A::Error> {
        while seq.next_element::<NoDuplicateKeys>()?.is_some() {}
        Ok(self)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self, E> {
        Ok(self)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self, E> {
        Ok(self)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self, E> {
        Ok(self)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self, E> {
        Ok(self)
    }
    fn visit_str<E>(self, _: &str) -> Result<Self, E> {
        Ok(self)
    }
    fn visit_unit<E>(self) -> Result<Self, E> {
        Ok(self)
    }
    fn visit_none<E>(self) -> Result<Self, E> {
        Ok(self)
    }
}

#[cfg(test)]
mod tests {

    /// A float the scenario holds comes back the same from its file: serde_json reads floats
    /// correctly rounded only with `float_roundtrip`, and without it a generated
    /// `clock.cristian` scenario's drift 3.644977040566833 ppm came back as
    /// 3.6449770405668325, so a failure written by `fuzz` could replay another run.
    #[test]
    fn floats_come_back_from_the_file_bit_for_bit() {
        let mut rng = crate::SimRng::new(7);
        for _ in 0..20_000 {
            let drift_ppm = rng.unit() * 1000.0 - 500.0;
            let json =
                serde_json::to_string(&crate::Fault::DriftChange { node: 0, drift_ppm }).unwrap();
            let read: crate::Fault = serde_json::from_str(&json).unwrap();
            let crate::Fault::DriftChange {
                drift_ppm: back, ..
            } = read
            else {
                unreachable!()
            };
            assert_eq!(back.to_bits(), drift_ppm.to_bits(), "{json}");
        }
    }

    /// A link still losing messages at the end outlasts the run, as an unhealed partition:
    /// the network's loss, or an override's, unless a later override (of the links or of the
    /// plan's `set_links`) that names the link restores it. A correct election under
    /// `network.loss: 0.5` was judged "after the faults stopped" at 0 ms.
    #[test]
    fn loss_that_never_stops_outlasts_the_run() {
        let sc = |network: &str, faults: &str| {
            Scenario::from_json(&format!(
                r#"{{"algorithm": "x", "nodes": 40, "seed": 1, "duration_ms": 500,
                    "network": {{{network}}}, "faults": [{faults}]}}"#
            ))
            .unwrap()
        };
        let set = |at: u64, link: &str| {
            format!(r#"{{"at_ms": {at}, "fault": {{"set_links": {{{link}}}}}}}"#)
        };
        for (network, faults, lossy) in [
            ("", String::new(), false),
            (r#""loss": 0.5"#, String::new(), true),
            (r#""loss": 0.5"#, set(100, r#""loss": 0.0"#), false),
            // restored on one link only: the others still lose
            (
                r#""loss": 0.5"#,
                set(100, r#""from": 3, "to": 4, "loss": 0.0"#),
                true,
            ),
            (
                r#""links": [{"from": 7, "loss": 0.2}]"#,
                String::new(),
                true,
            ),
            (
                r#""links": [{"from": 7, "loss": 0.2}]"#,
                set(100, r#""from": 7, "loss": 0.0"#),
                false,
            ),
            // restored, then lossy again on one link, one way
            (
                r#""loss": 0.5"#,
                format!(
                    "{}, {}",
                    set(100, r#""loss": 0.0"#),
                    set(200, r#""from": 39, "to": 0, "loss": 1.0"#)
                ),
                true,
            ),
            // the plan's order is its times', not the file's
            (
                "",
                format!(
                    "{}, {}",
                    set(200, r#""loss": 0.0"#),
                    set(100, r#""loss": 0.3"#)
                ),
                false,
            ),
        ] {
            let sc = sc(network, &faults);
            assert_eq!(sc.loses_at_the_end(), lossy, "{network} / {faults}");
            let last = sc.faults.iter().map(|f| f.at_ms).max().unwrap_or(0);
            let quiet = if lossy { 500 } else { last };
            assert_eq!(sc.quiet_from_ms(), quiet, "{network} / {faults}");
        }
    }

    /// A pause never resumed or a partition never healed outlasts the run: the faults stop at
    /// its end, not at their own time; a resumed pause, a healed partition and a crash-stop
    /// end at the last fault.
    #[test]
    fn a_fault_still_in_effect_at_the_end_stops_no_earlier_than_the_end() {
        let quiet = |faults: &str| {
            Scenario::from_json(&format!(
                r#"{{"algorithm": "x", "nodes": 3, "seed": 1, "duration_ms": 500,
                    "faults": [{faults}]}}"#
            ))
            .unwrap()
            .quiet_from_ms()
        };
        let pause = r#"{"at_ms": 20, "fault": {"pause": {"node": 1}}}"#;
        let resume = r#"{"at_ms": 40, "fault": {"resume": {"node": 1}}}"#;
        let cut = r#"{"at_ms": 30, "fault": {"partition": {"groups": [[0]]}}}"#;
        let heal = r#"{"at_ms": 60, "fault": "heal"}"#;
        let crash = r#"{"at_ms": 25, "fault": {"crash": {"node": 2}}}"#;
        assert_eq!(quiet(pause), 500);
        assert_eq!(quiet(&format!("{pause}, {resume}")), 40);
        // the plan's order is its times', not the file's: paused at 20 ms, resumed at 40
        assert_eq!(quiet(&format!("{resume}, {pause}")), 40);
        assert_eq!(quiet(&format!("{heal}, {crash}, {cut}")), 60);
        assert_eq!(quiet(cut), 500);
        assert_eq!(quiet(&format!("{cut}, {heal}")), 60);
        assert_eq!(quiet(crash), 25, "a crash-stop");
        assert_eq!(quiet(&format!("{pause}, {crash}, {resume}, {cut}")), 500);
    }

    /// `params` and inputs are free JSON: a key given twice there is refused as at the top
    /// level, where the last would otherwise silently decide the run.
    #[test]
    fn a_key_given_twice_anywhere_is_refused() {
        let sc = |params: &str, input: &str| {
            Scenario::from_json(&format!(
                r#"{{"algorithm": "x", "nodes": 2, "seed": 1, "duration_ms": 100,
                    "params": {params},
                    "workload": [{{"at_ms": 1, "node": 0, "input": {input}}}]}}"#
            ))
        };
        let ok = sc(
            r#"{"lease_ms": 50, "other": {"lease_ms": 1}}"#,
            r#"{"acquire": {"hold_ms": 3}}"#,
        );
        assert!(ok.is_ok(), "{ok:?}");
        for (params, input, key) in [
            (
                r#"{"lease_ms": 50, "lease_ms": 5000}"#,
                r#""a""#,
                "lease_ms",
            ),
            (
                r#"{}"#,
                r#"{"acquire": {"hold_ms": 30, "hold_ms": 3}}"#,
                "hold_ms",
            ),
            (r#"{"a": [{"b": 1, "b": 2}]}"#, r#""a""#, "b"),
        ] {
            let e = sc(params, input).expect_err("a duplicate key").0;
            assert!(e.contains(&format!("duplicate key `{key}`")), "{e}");
        }
    }
    use super::*;

    const MIN: &str = r#"{"algorithm": "x", "nodes": 3, "seed": 1, "duration_ms": 100}"#;

    #[test]
    fn minimal_scenario_gets_defaults() {
        let sc = Scenario::from_json(MIN).unwrap();
        assert_eq!(sc.variant, "correct");
        assert_eq!(sc.engine, EngineKind::Native);
        assert_eq!(sc.limits.max_events, 10_000_000);
        let again = Scenario::from_json(&sc.to_json()).unwrap();
        assert_eq!(again, sc);
    }

    #[test]
    fn unknown_fields_and_impossible_values_are_named() {
        let e = Scenario::from_json(
            r#"{"algorithm": "x", "nodes": 3, "seed": 1, "duration_ms": 100, "colour": 1}"#,
        )
        .unwrap_err();
        assert!(e.0.contains("unknown field `colour`"), "{e}");
        let e =
            Scenario::from_json(r#"{"algorithm": "x", "nodes": 0, "seed": 1, "duration_ms": 100}"#)
                .unwrap_err();
        assert!(e.0.contains("nodes must be at least 1"), "{e}");
        let e = Scenario::from_json(
            r#"{"algorithm": "x", "nodes": 2, "seed": 1, "duration_ms": 100, "network": {"loss": 1.5}}"#,
        )
        .unwrap_err();
        assert!(e.0.contains("loss probability"), "{e}");
        let e = Scenario::from_json(
            r#"{"algorithm": "x", "nodes": 2, "seed": 1, "duration_ms": 100,
                "faults": [{"at_ms": 5, "fault": {"crash": {"node": 7}}}]}"#,
        )
        .unwrap_err();
        assert!(e.0.contains("faults[0]") && e.0.contains("node 7"), "{e}");
        let e = Scenario::from_json(
            r#"{"algorithm": "x", "nodes": 2, "seed": 1, "duration_ms": 100,
                "clocks": {"rho_ppm": 10, "nodes": [{"node": 0, "drift_ppm": 20}]}}"#,
        )
        .unwrap_err();
        assert!(e.0.contains("exceeds the bound"), "{e}");
        let e = Scenario::from_json("{ not json").unwrap_err();
        assert!(e.0.starts_with("invalid scenario"), "{e}");
    }

    #[test]
    fn times_and_sizes_out_of_range_are_named() {
        let with = |extra: &str| {
            Scenario::from_json(&format!(
                r#"{{"algorithm": "x", "nodes": 3, "seed": 1, "duration_ms": 100{extra}}}"#
            ))
        };
        let cases = [
            (
                r#", "network": {"latency": {"constant": {"ms": 1e300}}}"#,
                "latency 1e300 ms",
            ),
            (
                r#", "network": {"links": [{"to": 1, "loss": 2}]}"#,
                "network: links[0]: loss",
            ),
            (
                r#", "network": {"links": [{"to": 5}]}"#,
                "to = 5 is not a node",
            ),
            (
                r#", "network": {"topology": {"graph": {"edges": [[0, 9]]}}}"#,
                "edges[0] = [0, 9]",
            ),
            (
                r#", "scenario": {}, "schedule": []"#,
                "a counterexample written by `explore`",
            ),
            (
                r#", "network": {"topology": {"graph": {"edges": [[0, 1, 2]]}}}"#,
                "edges[0] = [0,1,2]: an edge is two node numbers",
            ),
            (
                r#", "network": {"topology": {"graph": {"edges": [[0, 1], [-1, 2]]}}}"#,
                "edges[1] = [-1,2]: an edge is two node numbers",
            ),
            (
                r#", "clocks": {"offset_ms_max": 1e10}"#,
                "clocks.offset_ms_max",
            ),
            (
                r#", "clocks": {"nodes": [{"node": 1, "offset_ms": -2e9}]}"#,
                "clocks.nodes[0].offset_ms",
            ),
            (
                r#", "faults": [{"at_ms": 1, "fault": {"clock_jump": {"node": 0, "delta_ms": -1e12}}}]"#,
                "faults[0]: clock_jump.delta_ms = -1e12",
            ),
            (
                r#", "faults": [{"at_ms": 1, "fault": {"set_links": {"latency": {"constant": {"ms": 2e9}}}}}]"#,
                "faults[0]: set_links: latency",
            ),
            (
                r#", "params": {"timeout_ms": -5}"#,
                "params.timeout_ms = -5",
            ),
            (
                r#", "params": {"nested": [{"lease_ms": 1e10}]}"#,
                "params.nested[0].lease_ms",
            ),
            (
                r#", "workload": [{"at_ms": 1, "node": 0, "input": {"acquire": {"hold_ms": 9300000000000}}}]"#,
                "workload[0].input.acquire.hold_ms",
            ),
            (
                r#", "checks": {"liveness_bound_ms": 1000000000001}"#,
                "checks.liveness_bound_ms",
            ),
            (
                r#", "limits": {"max_trace_bytes": 0}"#,
                "limits.max_trace_bytes = 0",
            ),
            (r#", "limits": {"max_events": 0}"#, "limits.max_events = 0"),
            (
                r#", "limits": {"max_ticks": 1000000000}"#,
                "limits.max_ticks = 1000000000 is above 10000000",
            ),
            (
                r#", "limits": {"max_ticks": 10000001}"#,
                "limits.max_ticks = 10000001 is above 10000000",
            ),
            (
                r#", "limits": {"max_trace_bytes": 18446744073709551615}"#,
                "limits.max_trace_bytes = 18446744073709551615 is above 536870912",
            ),
            (
                r#", "checks": {"liveness_bound_ms": 0}"#,
                "checks.liveness_bound_ms = 0",
            ),
            (
                r#", "engine": "turmoil", "limits": {"max_ticks": 50}"#,
                "limits.max_ticks = 50",
            ),
        ];
        for (extra, needle) in cases {
            let e = with(extra).unwrap_err();
            assert!(e.0.contains(needle), "{extra}: {e}");
        }
        let e = Scenario::from_json(
            r#"{"algorithm": "x", "nodes": 100000, "seed": 1, "duration_ms": 10}"#,
        )
        .unwrap_err();
        assert!(e.0.contains("above the limit of 10000"), "{e}");
        // At the limits, accepted; 100000 nodes are refused without building their network.
        assert!(with(r#", "network": {"latency": {"constant": {"ms": 1000000000}}}"#).is_ok());
        assert!(with(r#", "params": {"hold_ms": 1000000000, "count": 1e300}"#).is_ok());
    }

    /// A plan's size is bounded where a run's cost or a clock's range would not be: more
    /// faults than the limit, partitions of many nodes (kept for the whole run: 473 MB for
    /// 100,000 of 1,000 nodes), clock jumps adding up past the limit on any time (they
    /// wrapped the clock, and the run passed).
    /// An entry serde reports by position only (an empty `{}` for a fault or the
    /// expectation: "expected value at line 1 column 755") is named, with how it is written.
    #[test]
    fn a_malformed_fault_or_expectation_is_named() {
        let doc = |faults: &str, expect: &str| {
            Scenario::from_json(&format!(
                r#"{{"algorithm": "x", "nodes": 2, "seed": 1, "duration_ms": 100,
                    "faults": [{{"at_ms": 1, "fault": "heal"}}, {faults}], "expect": {expect}}}"#
            ))
            .unwrap_err()
            .0
        };
        let e = doc(r#"{"at_ms": 2, "fault": {}}"#, r#""pass""#);
        assert!(e.contains("faults[1]: "), "{e}");
        assert!(e.contains("a fault is written"), "{e}");
        assert!(e.contains("(line 2, column"), "{e}");
        let e = doc(
            r#"{"at_ms": 2, "fault": {"crsh": {"node": 1}}}"#,
            r#""pass""#,
        );
        assert!(e.contains("faults[1]: unknown variant `crsh`"), "{e}");
        let e = doc(r#"{"at_ms": 2, "fault": "heal"}"#, "{}");
        assert!(e.contains("expect: "), "{e}");
        assert!(e.contains(r#"{"violation": "P"}"#), "{e}");
        // a schedule of the wrong shape is named, not "expected value" (stop 67's probe)
        let e = Scenario::from_json(
            r#"{"algorithm": "x", "nodes": 2, "seed": 1, "duration_ms": 100, "schedule": 5}"#,
        )
        .unwrap_err()
        .0;
        assert!(e.contains("schedule: invalid type: integer `5`"), "{e}");
        assert!(e.contains(r#"{"pct": {"priorities""#), "{e}");
        // a document that is not an object is said to be one, not read field by field
        for (text, shape) in [("[1, 2]", "an array"), ("5", "a number"), ("null", "null")] {
            let e = Scenario::from_json(text).unwrap_err().0;
            assert!(
                e.contains(&format!(
                    "the document is {shape}; a scenario is one JSON object"
                )),
                "{e}"
            );
        }
    }

    /// A turmoil run is refused by its cost, not only by its ticks: a 256-node run of 1,000 s
    /// passed `max_ticks` and would have taken about a day. The error says the longest run
    /// allowed, which passes; raising `max_ticks` raises the budget; native is not limited.
    #[test]
    fn a_turmoil_run_too_costly_for_its_node_count_is_refused() {
        let doc = |nodes: usize, ms: u64, extra: &str| {
            Scenario::from_json(&format!(
                r#"{{"algorithm": "x", "nodes": {nodes}, "seed": 1, "duration_ms": {ms}{extra}}}"#
            ))
        };
        let turmoil = r#", "engine": "turmoil""#;
        let e = doc(256, 1_000_000, turmoil).unwrap_err().0;
        assert!(
            e.contains("nodes = 256 for duration_ms = 1000000 is too costly on turmoil"),
            "{e}"
        );
        // 1e6 ticks of 16 · 120 visits, over 256 · 32,640 visits a tick
        assert!(e.contains("at 256 nodes run at most 229 ms"), "{e}");
        assert!(doc(256, 229, turmoil).is_ok());
        assert!(doc(256, 230, turmoil).is_err());
        assert!(doc(16, 1_000_000, turmoil).is_ok());
        assert!(doc(17, 1_000_000, turmoil).is_err());
        let raised = r#", "engine": "turmoil", "limits": {"max_ticks": 2000000}"#;
        assert!(doc(256, 458, raised).is_ok());
        assert!(doc(256, 1_000_000, "").is_ok());
        assert_eq!(turmoil_link_visits_per_tick(1), 0);
        assert_eq!(turmoil_link_visits_per_tick(3), 9);
    }

    /// Errors name what the file says: a fault by its place in the file, whatever order the
    /// plan is listed in (validation counted places in the plan sorted by time: the third
    /// fault of a file was `faults[0]`), and a value of the wrong type by its field (serde
    /// named a line and a column only).
    #[test]
    fn errors_name_the_files_own_places_and_fields() {
        let doc = |rest: &str| {
            Scenario::from_json(&format!(
                r#"{{"algorithm": "x", "nodes": 4, "seed": 1, "duration_ms": 600{rest}}}"#
            ))
            .unwrap_err()
            .0
        };
        let e = doc(
            r#", "faults": [{"at_ms": 50, "fault": {"pause": {"node": 1}}},
                {"at_ms": 60, "fault": {"resume": {"node": 1}}},
                {"at_ms": 10, "fault": {"crash": {"node": 9}}}]"#,
        );
        assert!(e.contains("faults[2]: node 9"), "{e}");
        let e = doc(
            r#", "faults": [{"at_ms": 50, "fault": {"pause": {"node": 1}}},
                {"at_ms": 700, "fault": {"resume": {"node": 1}}}, {"at_ms": 10, "fault": "heal"}]"#,
        );
        assert!(e.contains("faults[1].at_ms = 700"), "{e}");
        let e = doc(r#", "clocks": {"nodes": [{"node": 0, "offset_ms": "NaN"}]}"#);
        assert!(e.contains("clocks.nodes[0].offset_ms: invalid type"), "{e}");
        // 2^64: serde_json reads it as a float, and the error says why
        let e = Scenario::from_json(
            r#"{"algorithm": "x", "nodes": 4, "seed": 18446744073709551616, "duration_ms": 600}"#,
        )
        .unwrap_err()
        .0;
        assert!(
            e.contains("seed") && e.contains("above 18446744073709551615"),
            "{e}"
        );
        let e = Scenario::from_json(r#"{"algorithm": "x", "nodes": 4, "seed": -1}"#)
            .unwrap_err()
            .0;
        assert!(e.contains("seed: invalid value: integer `-1`"), "{e}");
        // Parsed, the plan is in time order, as every engine applies it.
        let sc = Scenario::from_json(
            r#"{"algorithm": "x", "nodes": 4, "seed": 1, "duration_ms": 600, "faults": [
                {"at_ms": 50, "fault": {"pause": {"node": 1}}}, {"at_ms": 10, "fault": "heal"}]}"#,
        )
        .unwrap();
        assert_eq!(sc.faults[0].at_ms, 10);
    }

    /// The JSON's size is bounded before it is parsed: a 56 MB file of one-key objects
    /// under `params` took 4.7 GB, and aborted under a memory cap.
    #[test]
    fn a_scenario_of_too_many_json_values_is_refused_before_parsing() {
        let junk = |n: usize| vec![r#"{"a":0}"#; n].join(",");
        let doc = |n: usize| {
            format!(
                r#"{{"algorithm": "x", "nodes": 4, "seed": 1, "params": {{"junk": [{}]}}}}"#,
                junk(n)
            )
        };
        // One object and one comma per element.
        let e = Scenario::from_json(&doc(MAX_SCENARIO_JSON_VALUES / 2 + 1))
            .unwrap_err()
            .0;
        assert!(e.contains("above the limit of 1000000"), "{e}");
        assert!(!Scenario::from_json(&doc(1000))
            .unwrap_err()
            .0
            .contains("limit"));
        // Braces and commas inside strings are text, not values.
        assert_eq!(json_values(r#"{"a": "{[,\",", "b": [1, 2]}"#), 4);
    }

    #[test]
    fn a_fault_plan_too_large_to_run_is_refused() {
        let plan = |nodes: usize, fault: &str, count: usize| {
            let faults = vec![format!(r#"{{"at_ms": 1, "fault": {fault}}}"#); count].join(",");
            Scenario::from_json(&format!(
                r#"{{"algorithm": "x", "nodes": {nodes}, "seed": 1, "duration_ms": 100, "faults": [{faults}]}}"#
            ))
        };
        let e = plan(3, r#""heal""#, MAX_FAULTS + 1).unwrap_err().0;
        assert!(e.contains("above the limit of 10000"), "{e}");
        plan(3, r#""heal""#, MAX_FAULTS).expect("at the limit");
        let part = r#"{"partition": {"groups": [[0]]}}"#;
        let e = plan(2000, part, 5001).unwrap_err().0;
        assert!(e.contains("5001 partitions of 2000 nodes"), "{e}");
        plan(2000, part, 5000).expect("10,000,000 entries");
        let jump = r#"{"clock_jump": {"node": 1, "delta_ms": -600000000}}"#;
        let e = plan(3, jump, 2).unwrap_err().0;
        assert!(
            e.contains("the clock jumps of node 1 add up to 1200000000 ms"),
            "{e}"
        );
        plan(3, jump, 1).expect("one jump within the limit");
    }

    #[test]
    fn a_float_in_a_whole_number_field_gets_the_hint_that_fits() {
        let err = |seed: &str| {
            Scenario::from_json(&format!(
                r#"{{"algorithm": "a", "nodes": 3, "seed": {seed}, "duration_ms": 10}}"#
            ))
            .unwrap_err()
            .0
        };
        for small in ["1.5", "-0.0", "1e3"] {
            let e = err(small);
            assert!(
                e.contains("this field holds a whole number"),
                "{small}: {e}"
            );
            assert!(!e.contains("above 18446744073709551615"), "{small}: {e}");
        }
        let e = err("18446744073709551616");
        assert!(
            e.contains("a whole number above 18446744073709551615"),
            "{e}"
        );
    }

    #[test]
    fn scenario_files_are_read_with_a_size_limit() {
        let dir = std::env::temp_dir().join(format!("sincro-load-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let big = dir.join("big.json");
        std::fs::write(&big, vec![b' '; 2000]).unwrap();
        let e = read_limited(&big, 1000).unwrap_err();
        assert!(
            e.to_string()
                .contains("larger than the limit of 1000 bytes"),
            "{e}"
        );
        assert_eq!(read_limited(&big, 2000).unwrap().len(), 2000);
        // A huge sparse file is refused by its size, without reading it.
        let huge = dir.join("huge.json");
        std::fs::File::create(&huge)
            .unwrap()
            .set_len(1 << 40)
            .unwrap();
        let e = read_limited(&huge, 1000).unwrap_err();
        assert!(e.to_string().contains("larger than the limit"), "{e}");
        // A byte-order mark is skipped.
        let bom = dir.join("bom.json");
        std::fs::write(&bom, b"\xEF\xBB\xBF{}").unwrap();
        assert_eq!(read_limited(&bom, 100).unwrap(), "{}");
        let e = Scenario::load(&dir).unwrap_err();
        assert!(e.0.contains("it is a directory"), "{e}");
        // A FIFO: with no writer it is an error at once (its `open` blocked for ever); one
        // whose writer comes a little later is read.
        #[cfg(unix)]
        {
            let fifo = dir.join("fifo.json");
            let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
            // SAFETY: a valid NUL-terminated path; mkfifo only creates the file.
            assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
            let e = read_limited(&fifo, 100).unwrap_err();
            assert!(e.to_string().contains("a FIFO with no writer"), "{e}");
            let writer = {
                let fifo = fifo.clone();
                std::thread::spawn(move || {
                    use std::io::Write;
                    let mut w = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
                    std::thread::sleep(std::time::Duration::from_millis(50));
                    w.write_all(b"{}").unwrap();
                })
            };
            // A blocking reader meets the writer first (one with none sees an empty FIFO);
            // it reads nothing, so the writer's bytes, 50 ms later, go to `read_limited`.
            let _meet = std::fs::File::open(&fifo).unwrap();
            assert_eq!(read_limited(&fifo, 100).unwrap(), "{}");
            writer.join().unwrap();
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A property named twice in `checks.properties`, and a one-way partition with a node on
    /// both sides (it cuts nothing of its own), were accepted as if they meant something.
    #[test]
    fn a_property_named_twice_and_a_node_cut_from_itself_are_refused() {
        let sc = |extra: &str| {
            Scenario::from_json(&format!(
                r#"{{"algorithm": "x", "nodes": 3, "seed": 1, "duration_ms": 100, {extra}}}"#
            ))
        };
        let e = sc(r#""checks": {"properties": ["liveness", "mutual_exclusion", "liveness"]}"#)
            .unwrap_err();
        assert!(
            e.0.contains("checks.properties names `liveness` twice"),
            "{e}"
        );
        let e = sc(
            r#""faults": [{"at_ms": 1, "fault": {"partition_oneway": {"from": [0, 1], "to": [1, 2]}}}]"#,
        )
        .unwrap_err();
        assert!(e.0.contains("node 1 is on both sides"), "{e}");
        assert!(sc(r#""checks": {"properties": ["liveness"]}"#).is_ok());
        assert!(sc(
            r#""faults": [{"at_ms": 1, "fault": {"partition_oneway": {"from": [0], "to": [1, 2]}}}]"#
        )
        .is_ok());
    }

    #[test]
    fn engine_exceptions_need_a_reason_and_one_entry_per_engine() {
        let base = r#"{"algorithm": "x", "nodes": 2, "seed": 1, "duration_ms": 100,
                       "expect": "pass", "engine_exceptions": "#;
        let sc = Scenario::from_json(&format!(
            r#"{base}[{{"engine": "madsim", "verdict": {{"violation": "liveness"}},
                        "reason": "2 ms transport floor"}}]}}"#
        ))
        .unwrap();
        assert_eq!(sc.engine_exceptions[0].engine, EngineKind::Madsim);
        assert_eq!(
            sc.engine_exceptions[0].verdict,
            Expect::Violation("liveness".into())
        );
        // Round trip, and absent when empty.
        assert_eq!(Scenario::from_json(&sc.to_json()).unwrap(), sc);
        assert!(!Scenario::from_json(
            r#"{"algorithm": "x", "nodes": 2, "seed": 1, "duration_ms": 100}"#
        )
        .unwrap()
        .to_json()
        .contains("engine_exceptions"));
        let e = Scenario::from_json(&format!(
            r#"{base}[{{"engine": "turmoil", "verdict": "pass", "reason": " "}}]}}"#
        ))
        .unwrap_err();
        assert!(e.0.contains("engine_exceptions[0].reason"), "{e}");
        let e = Scenario::from_json(&format!(
            r#"{base}[{{"engine": "turmoil", "verdict": "pass", "reason": "a"}},
                      {{"engine": "turmoil", "verdict": "pass", "reason": "b"}}]}}"#
        ))
        .unwrap_err();
        assert!(e.0.contains("engine_exceptions[1]"), "{e}");
    }
}
