//! # Sincro
//!
//! A deterministic test harness and fault-injection framework for the classic synchronization
//! algorithms of distributed systems — and for yours. This crate is the facade: it re-exports
//! the harness ([`harness`]), the property checkers ([`checkers`]) and the algorithms
//! ([`algorithms`]), and holds the test entry point ([`testing`]), fuzz campaigns ([`fuzz`])
//! and, with the default `cli` feature, the command line as a library (`cli`).
//!
//! ## Tutorial: test your own algorithm
//!
//! An algorithm is a [`Process`](harness::Process): a sans-IO state machine that reacts to
//! messages, timers and workload inputs and acts only through its [`Ctx`](harness::Ctx). Next
//! to it, a [`Spec`](algorithms::Spec) says what Sincro needs to fuzz it: a name, typed
//! parameters and variants, the properties it promises, its fault model, how to build a node
//! and a workload. Here, a replicated max-register and its buggy twin:
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use sincro::algorithms::{variants, Spec, Timed};
//! use sincro::harness::fault::{FaultClass, FaultModel};
//! use sincro::harness::{Ctx, NodeId, Observation, Process, SimRng};
//!
//! variants! {
//!     /// How a replica merges what it hears.
//!     pub enum Merge {
//!         Max = "correct", "keeps the larger value";
//!         Overwrite = "overwrite" (buggy), "takes whatever arrives last";
//!     }
//! }
//!
//! /// Workload: a client sets a value at one replica.
//! #[derive(Clone, Debug, Serialize, Deserialize)]
//! pub enum Input { Set(u64) }
//!
//! /// One replica.
//! pub struct Replica { merge: Merge, value: u64 }
//!
//! impl Replica {
//!     fn report(&self, ctx: &mut Ctx<'_, Self>) {
//!         ctx.observe(Observation::State { value: self.value.to_string() });
//!     }
//! }
//!
//! impl Process for Replica {
//!     type Msg = u64;
//!     type Timer = ();
//!     type Input = Input;
//!     type Stable = ();
//!     fn on_input(&mut self, ctx: &mut Ctx<'_, Self>, Input::Set(v): Input) {
//!         self.value = self.value.max(v);
//!         ctx.broadcast(self.value);
//!         self.report(ctx);
//!     }
//!     fn on_message(&mut self, ctx: &mut Ctx<'_, Self>, _from: NodeId, v: u64) {
//!         self.value = match self.merge {
//!             Merge::Max => self.value.max(v),
//!             Merge::Overwrite => v,
//!         };
//!         self.report(ctx);
//!     }
//! }
//!
//! /// `demo.max-register`: what Sincro needs to know.
//! #[derive(Clone)]
//! pub struct MaxRegister;
//!
//! impl Spec for MaxRegister {
//!     type Node = Replica;
//!     type Params = ();
//!     type Variant = Merge;
//!     fn name(&self) -> &'static str { "demo.max-register" }
//!     fn properties(&self) -> Vec<&'static str> { vec!["replica_agreement"] }
//!     fn fault_model(&self) -> FaultModel {
//!         FaultModel {
//!             tolerates: vec![FaultClass::Reordering, FaultClass::Duplication],
//!             summary: "reliable links with any delay, reordering and duplication",
//!             ..FaultModel::default()
//!         }
//!     }
//!     fn node(&self, merge: Merge, _: &(), _id: NodeId) -> Replica {
//!         Replica { merge, value: 0 }
//!     }
//!     fn workload(&self, rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<Timed<Input>> {
//!         (0..rng.range_u64(2, 8))
//!             .map(|_| Timed {
//!                 at_ms: rng.range_u64(0, active_ms),
//!                 node: rng.index(nodes),
//!                 input: Input::Set(rng.range_u64(1, 100)),
//!             })
//!             .collect()
//!     }
//! }
//!
//! // In a `#[test]`: every seed of the correct variant passes...
//! let report = sincro::testing::check(MaxRegister).seeds(50).no_regressions().run().unwrap();
//! assert_eq!(report.runs, 50);
//! // ...and the twin is caught, with a shrunk scenario that replays exactly.
//! let found = sincro::testing::check(MaxRegister)
//!     .variant(Merge::Overwrite)
//!     .expect_violation("replica_agreement")
//!     .unwrap();
//! assert!(found.explanation.contains("the replicas disagree"));
//! ```
//!
//! A failing `run()` returns a [`testing::Failure`] whose text names the violation, shows the
//! events that prove it, writes the shrunk scenario to `sincro-regressions/` (replayed first on
//! the next run) and prints the replay line (`SINCRO_REPLAY=<file> cargo test …`). The
//! environment variables `SINCRO_SEED`, `SINCRO_SEEDS`, `SINCRO_TIME`,
//! `SINCRO_CHECK_DETERMINISM`, `SINCRO_REPLAY`, `SINCRO_ENGINE`, `SINCRO_JOBS` and
//! `SINCRO_REGRESSIONS` steer it (see [`testing`]).
//!
//! Your own properties: report what your checker needs with
//! [`Observation::user`](harness::Observation::user), write an `impl` [`Checker`](harness::Checker),
//! and return it from [`Spec::checker`](algorithms::Spec::checker) for a name your
//! `properties()` lists. For every command of the `sincro` CLI on your algorithm, a binary of
//! your own calls `sincro::cli::main_with(Registry::builtin().with(MaxRegister))`.

#![warn(missing_docs)]

#[cfg(feature = "cli")]
pub mod bench;
#[cfg(feature = "cli")]
pub mod bench_fuzz;
#[cfg(feature = "cli")]
pub mod bench_scale;
pub mod calibrate;
#[cfg(feature = "cli")]
pub mod cli;
#[cfg(feature = "cli")]
pub mod explore;
pub mod fuzz;
pub mod guide;
#[cfg(feature = "cli")]
pub mod show;
#[cfg(feature = "cli")]
pub mod table;
pub mod testing;

pub use sincro_algorithms as algorithms;
pub use sincro_checkers as checkers;
pub use sincro_harness as harness;

static PROGRAM: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// The name of the command that replays a failure, as replay lines print it: `sincro`, or the
/// name of a user's own binary over [`cli::main_with`](crate::cli).
pub fn program_name() -> &'static str {
    PROGRAM.get().map_or("sincro", String::as_str)
}

/// `path` as one shell word: as is when it holds only characters no shell treats specially
/// (letters, digits, `/ . _ - + , : = @ %`), else in single quotes (a `'` inside written
/// `'\''`), so a printed replay line runs as printed (`--out "my out"`, a `$` in a name). A
/// relative path that starts with `-` is written `./-…`, so no command reads it as an option.
///
/// A name a terminal would not show as it is (a control character, a bidirectional override,
/// bytes that are not UTF-8) is written in Bash's `$'…'` quoting, each such character as an
/// escape (`\x1b`, `\u202e`, `\xff`), so the line names that very file and prints nothing
/// raw to the terminal (stop 57: an ESC reached the terminal, and a non-UTF-8 name was
/// printed as `�`, naming a file that does not exist).
pub fn shell_word(path: &std::path::Path) -> String {
    if let Some(w) = ansi_c_word(path) {
        return w;
    }
    let s = path.to_string_lossy();
    if s.starts_with('-') {
        return shell_word(&std::path::Path::new(".").join(path));
    }
    let plain = !s.is_empty()
        && s.chars().all(|c| {
            c.is_ascii_alphanumeric()
                || matches!(c, '/' | '.' | '_' | '-' | '+' | ',' | ':' | '=' | '@' | '%')
        });
    if plain {
        s.into_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// `path` in Bash's `$'…'` quoting when it holds a [`harness::scenario::hidden_char`] or bytes that are not
/// UTF-8 (on Unix), else `None`.
fn ansi_c_word(path: &std::path::Path) -> Option<String> {
    #[cfg(unix)]
    let bytes = std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str()).to_vec();
    #[cfg(not(unix))]
    let bytes = path.to_string_lossy().into_owned().into_bytes();
    let clean =
        std::str::from_utf8(&bytes).is_ok_and(|s| !s.chars().any(harness::scenario::hidden_char));
    if clean {
        return None;
    }
    let mut out = String::from("$'");
    if bytes.first() == Some(&b'-') {
        out.push_str("./");
    }
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '\'' => out.push_str("\\'"),
                c if (c as u32) < 0x80 && harness::scenario::hidden_char(c) => {
                    out.push_str(&format!("\\x{:02x}", c as u32))
                }
                c if harness::scenario::hidden_char(c) => {
                    out.push_str(&format!("\\u{:04x}", c as u32))
                }
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out.push('\'');
    Some(out)
}

/// The command that replays scenario file `path`: `sincro replay PATH`, the path quoted for
/// a shell ([`shell_word`]), and `--engine E` when the run being reported was on another
/// engine than the file names (`run --engine`), so the line reproduces what was shown.
pub fn replay_command(path: &std::path::Path, engine: Option<&str>) -> String {
    let mut line = format!("{} replay {}", program_name(), shell_word(path));
    if let Some(e) = engine {
        line.push_str(" --engine ");
        line.push_str(e);
    }
    line
}

/// One item of a comma-separated option (`--properties "a, b"`), spaces around it trimmed
/// as `fuzz -a "x, y"` trims its names: ` b` is no property a user meant.
pub fn list_item(s: &str) -> Result<String, String> {
    Ok(s.trim().to_string())
}

/// `Err` naming `flag` when the output `out` is one of `inputs` (the same file, by any path:
/// see [`same_file`]): writing it would destroy that input before it is read. `is` says what
/// the input is (`"the input itself"`), `lost` what would be lost (`"the failing scenario"`).
pub fn refuse_overwrite(
    flag: &str,
    out: &std::path::Path,
    inputs: &[&std::path::Path],
    is: &str,
    lost: &str,
) -> Result<(), String> {
    if inputs.iter().any(|input| same_file(out, input)) {
        return Err(format!(
            "{flag} {} is {is}: {lost} would be lost; name another file",
            out.display()
        ));
    }
    Ok(())
}

/// Whether `a` and `b` name the same file (either may not exist yet): an output that would
/// overwrite the command's own input (`run S --trace S`) is refused, never written. Two
/// existing paths are the same file when they are one device's one inode (hard links too:
/// `run S --trace H` with `H` a hard link of `S` overwrote the scenario), else when they
/// resolve to one path.
pub fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return x.dev() == y.dev() && x.ino() == y.ino();
        }
    }
    match (resolve(a), resolve(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// `path` made absolute, its links resolved: its longest existing ancestor canonicalized,
/// then the rest taken component by component, `..` removing the last (no component of the
/// rest exists, so none is a link). `newdir/../r.xml` with no `newdir` is `./r.xml`, which an
/// output creating `newdir` first would overwrite (`merge-reports --junit newdir/../r.xml r.xml`
/// did).
fn resolve(path: &std::path::Path) -> Option<std::path::PathBuf> {
    use std::path::Component;
    let mut base = path;
    let mut rest = Vec::new();
    let mut resolved = loop {
        if base.as_os_str().is_empty() {
            break std::env::current_dir().ok()?;
        }
        if let Ok(c) = base.canonicalize() {
            break c;
        }
        rest.push(base.components().next_back()?);
        base = base.parent()?;
    };
    for c in rest.into_iter().rev() {
        match c {
            Component::ParentDir => {
                resolved.pop();
            }
            Component::CurDir => {}
            other => resolved.push(other),
        }
    }
    Some(resolved)
}

/// Sets the name [`program_name`] returns (the first call wins).
pub fn set_program_name(name: impl Into<String>) {
    let _ = PROGRAM.set(name.into());
}

/// The way to name this program in a printed command, from how it was started (`argv[0]`):
/// its file name when the shell finds it by that name (started through `PATH`, or the
/// `PATH`'s file of that name is this one), else the path it was started by (a user's binary
/// under `target/release/`, which no `PATH` holds), as a shell word.
pub fn program_name_from(argv0: &std::path::Path) -> Option<String> {
    let name = argv0.file_name()?.to_str()?;
    let found_by_name = argv0.components().count() == 1
        || std::env::var_os("PATH").is_some_and(|dirs| {
            std::env::split_paths(&dirs).any(|d| {
                let candidate = d.join(name);
                candidate.is_file() && same_file(&candidate, argv0)
            })
        });
    Some(if found_by_name {
        name.to_string()
    } else {
        shell_word(argv0)
    })
}

/// What stopped a campaign, a matrix or an exploration early, for the messages that say so.
/// The CLI records the signal it received ([`stop::record`]); a stop flag a library user sets
/// reads as "a stop request".
pub mod stop {
    use std::sync::atomic::{AtomicU8, Ordering};

    static CAUSE: AtomicU8 = AtomicU8::new(0);

    /// What asked a long piece of work to stop.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Cause {
        /// SIGINT: Ctrl-C at a terminal.
        CtrlC = 1,
        /// SIGTERM: what `timeout`, CI runners and `docker stop` send.
        Term = 2,
        /// SIGHUP: the terminal went away.
        Hangup = 3,
    }

    /// Records the first cause (later ones do not replace it).
    pub fn record(cause: Cause) {
        let _ = CAUSE.compare_exchange(0, cause as u8, Ordering::SeqCst, Ordering::SeqCst);
    }

    /// The recorded cause, as messages name it: `Ctrl-C`, `SIGTERM`, `SIGHUP`, or `a stop
    /// request` when nothing was recorded (a library user's own stop flag).
    pub fn cause() -> &'static str {
        match CAUSE.load(Ordering::SeqCst) {
            1 => "Ctrl-C",
            2 => "SIGTERM",
            3 => "SIGHUP",
            _ => "a stop request",
        }
    }
}

/// Exit codes of the `sincro` command.
pub mod exit {
    /// Every checked property held (or, for `fuzz`, every verdict was as expected).
    pub const PASS: i32 = 0;
    /// A property was violated (for `fuzz`: an unexpected verdict).
    pub const VIOLATION: i32 = 1;
    /// Bad input: malformed scenario, unknown algorithm, impossible parameter (clap's usage
    /// errors use 2 as well).
    pub const BAD_INPUT: i32 = 2;
    /// The algorithm under test panicked.
    pub const PANIC: i32 = 3;
    /// A run limit (events, messages in flight) was hit.
    pub const LIMIT: i32 = 4;
    /// The same scenario gave two different traces (`--check-determinism`).
    pub const NONDETERMINISM: i32 = 5;
    /// No property was violated, but a checker could not judge the run (it ended too early,
    /// a checker's limit was reached): never a pass.
    pub const UNJUDGED: i32 = 6;
    /// A campaign was interrupted (Ctrl-C, SIGTERM or SIGHUP); what it found was written
    /// and summarized.
    pub const INTERRUPTED: i32 = 130;
}

/// The exit code for a verdict.
pub fn exit_code(v: &harness::Verdict) -> i32 {
    match v {
        harness::Verdict::Pass => exit::PASS,
        harness::Verdict::Violation(_) => exit::VIOLATION,
        harness::Verdict::Panic { .. } => exit::PANIC,
        harness::Verdict::LimitExceeded { .. } => exit::LIMIT,
        harness::Verdict::Unjudged { .. } => exit::UNJUDGED,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// An output under a folder that does not exist yet, stepping back out of it with `..`,
    /// names the input it would overwrite once the folder is made (`merge-reports --junit
    /// newdir/../s1.xml s1.xml` overwrote `s1.xml`).
    #[test]
    fn a_path_through_a_folder_not_made_yet_is_the_file_it_will_be() {
        let dir = std::env::temp_dir().join(format!("sincro-same-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let input = dir.join("s1.xml");
        std::fs::write(&input, "x").unwrap();
        assert!(same_file(&dir.join("newdir/../s1.xml"), &input));
        assert!(same_file(&dir.join("newdir/./deeper/../../s1.xml"), &input));
        assert!(!same_file(&dir.join("newdir/../s2.xml"), &input));
        assert!(!same_file(&dir.join("newdir/s1.xml"), &input));
        assert!(!dir.join("newdir").exists(), "nothing is made to compare");
        // neither exists: the same path, spelled two ways
        assert!(same_file(&dir.join("a/../b.xml"), &dir.join("b.xml")));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A printed replay line runs as printed: a path with a space, a quote or a `$` is one
    /// quoted shell word; a plain one is left as is.
    #[test]
    fn replay_lines_quote_what_a_shell_would_split_or_expand() {
        assert_eq!(
            shell_word(Path::new("failures/a.seed3.json")),
            "failures/a.seed3.json"
        );
        assert_eq!(shell_word(Path::new("my out/a.json")), "'my out/a.json'");
        assert_eq!(shell_word(Path::new("$(x);'q")), r"'$(x);'\''q'");
        assert_eq!(shell_word(Path::new("")), "''");
        assert_eq!(shell_word(Path::new("-a.json")), "./-a.json");
        assert_eq!(shell_word(Path::new("-a b.json")), "'./-a b.json'");
        assert!(replay_command(Path::new("a b.json"), Some("turmoil"))
            .ends_with(" replay 'a b.json' --engine turmoil"));
    }

    /// A name with a control character, a bidirectional override or bytes that are not UTF-8
    /// is one `$'…'` word that Bash reads back as those very bytes, and prints nothing raw (an
    /// ESC reached the terminal; a non-UTF-8 name was printed as `�`, another file).
    #[cfg(unix)]
    #[test]
    fn replay_lines_escape_what_a_terminal_would_act_on_and_name_the_very_bytes() {
        use std::os::unix::ffi::OsStrExt;
        let names: [&[u8]; 5] = [
            b"red\x1b[31m\nline.json",
            b"\xff\xfe.json",
            "a\u{202e}nosj.exe".as_bytes(),
            b"-x\x07 'q' \\.json",
            "ü\x01.json".as_bytes(),
        ];
        for name in names {
            let path = Path::new(std::ffi::OsStr::from_bytes(name));
            let word = shell_word(path);
            assert!(word.starts_with("$'"), "{word}");
            assert!(
                !word.chars().any(harness::scenario::hidden_char),
                "{word:?}"
            );
            if std::path::Path::new("/bin/bash").exists() {
                let out = std::process::Command::new("/bin/bash")
                    .arg("-c")
                    .arg(format!("printf %s {word}"))
                    .output()
                    .unwrap();
                let want: Vec<u8> = if name.starts_with(b"-") {
                    [b"./".as_slice(), name].concat()
                } else {
                    name.to_vec()
                };
                assert_eq!(out.stdout, want, "{word}");
            }
        }
        let shown = harness::scenario::shown_text;
        assert_eq!(shown("v\x1b[1m"), "v\\u{1b}[1m");
        assert_eq!(shown("plain ü"), "plain ü");
    }

    /// A program started by its name is named so; one started by a path no `PATH` leads to
    /// (a user's binary under `target/`) is named by that path, which a shell can run.
    #[test]
    fn a_replay_line_names_the_program_as_a_shell_finds_it() {
        assert_eq!(
            program_name_from(Path::new("sincro")).as_deref(),
            Some("sincro")
        );
        let exe = std::env::current_exe().unwrap();
        assert_eq!(
            program_name_from(&exe),
            Some(shell_word(&exe)),
            "a test binary is on no PATH"
        );
        assert_eq!(
            program_name_from(Path::new("./target/release/lease sincro")).as_deref(),
            Some("'./target/release/lease sincro'")
        );
    }
}
