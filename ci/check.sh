#!/usr/bin/env bash
# What CI runs: formatting, lints, the test suite (the README's test command), a determinism
# sweep and a short fuzz campaign over every registered algorithm, the failure views'
# screenshots, the madsim engine, and packaging.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
export INSTA_UPDATE=no   # a changed snapshot fails CI; accept it locally with `cargo insta review`

# Each step's header says how long the one before it took, and the end the whole run, so a
# slow step shows in the log.
ci_start=$SECONDS
step_start=
step() {
  echo
  if [ -n "$step_start" ]; then
    echo "(the step above took $((SECONDS - step_start)) s)"
  fi
  step_start=$SECONDS
  echo "=== $* ==="
}

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (deny warnings)"
cargo clippy --workspace --all-targets -- -D warnings

step "cargo doc (deny warnings)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps

step "tests (README: cargo test --workspace), every in-model sweep whole, and the slow tests a fresh clone skips"
# A debug build runs a fifth of each algorithm's in-model sweep unless SINCRO_FULL_SWEEPS=1
# (algorithms/src/test_support.rs); CI runs them whole, with debug assertions on.
SINCRO_FULL_SWEEPS=1 cargo test --workspace
cargo test -p sincro --lib -- --ignored positioning

step "examples: a user's algorithms outside the registry (lease primary, replicated counter), each twin caught and each fix passing"
cargo test -p sincro --examples

step "external crate (external/lease-primary): a user's own crate tests its algorithm with zero adapter code"
ext=external/lease-primary/Cargo.toml
# Its dev profile must give every package Sincro's settings, or it rebuilds every dependency.
python3 ci/profiles.py
# A library user compiles none of the command line's crates.
if cargo tree --manifest-path "$ext" -e normal --prefix none | grep -E '^(clap|indicatif|ctrlc) '; then
  echo "the library build of sincro pulls in a CLI crate"; exit 1
fi
cargo clippy --manifest-path "$ext" --target-dir target --all-targets --features cli -- -D warnings
cargo test --manifest-path "$ext" --target-dir target --features cli
# Its own binary over `sincro::cli::main_with`: fuzz finds the twin's split brain, and the
# shrunk failure replays to the same trace, byte for byte.
cargo build --manifest-path "$ext" --target-dir target --features cli --bin lease-sincro
rm -rf target/ci-external
set +e
target/debug/lease-sincro fuzz -a demo.lease-primary --seeds 300 --out target/ci-external --quiet > target/ci-external.txt
code=$?
set -e
cat target/ci-external.txt
if [ "$code" -ne 0 ]; then echo "expected the correct variant to pass and the twin to be caught (exit 0), got $code"; exit 1; fi
shrunk=$(ls target/ci-external/demo.lease-primary.no-step-down.*.shrunk.json)
target/debug/lease-sincro replay "$shrunk" --render none --trace target/ci-external/a.jsonl || true
target/debug/lease-sincro replay "$shrunk" --render none --trace target/ci-external/b.jsonl || true
cmp target/ci-external/a.jsonl target/ci-external/b.jsonl
# Offline, with the scenario: the user's checker from the spec alone (no with_checker) finds
# the split brain (exit 1), and a trace without its observations is not judged (exit 6).
set +e
target/debug/lease-sincro check target/ci-external/a.jsonl --properties at_most_one_primary --scenario "$shrunk"
code=$?
sed 's/"primary_on"/"primary_up"/g' target/ci-external/a.jsonl > target/ci-external/no-primaries.jsonl
target/debug/lease-sincro check target/ci-external/no-primaries.jsonl --properties at_most_one_primary --scenario "$shrunk"
vacuous=$?
set -e
if [ "$code" -ne 1 ] || [ "$vacuous" -ne 6 ]; then echo "expected exit 1 and 6, got $code and $vacuous"; exit 1; fi
grep -q primary_on target/ci-external/a.jsonl
# Messages in the user's binary: a misspelt name gets its right spelling and no advice to
# run another binary; a message of the library's layers names this program, not `sincro`.
set +e
target/debug/lease-sincro fuzz -a demo.lease-primry --seeds 1 2> target/ci-external/misspelt.txt
misspelt=$?
target/debug/lease-sincro run target/ci-external/a.jsonl 2> target/ci-external/trace-as-scenario.txt
as_scenario=$?
set -e
cat target/ci-external/misspelt.txt target/ci-external/trace-as-scenario.txt
if [ "$misspelt" -ne 2 ] || [ "$as_scenario" -ne 2 ]; then echo "expected exit 2 and 2, got $misspelt and $as_scenario"; exit 1; fi
grep -q 'did you mean `demo.lease-primary`' target/ci-external/misspelt.txt
if grep -q 'that binary' target/ci-external/misspelt.txt; then echo "the user's binary sent its user to another binary"; exit 1; fi
grep -q 'lease-sincro show`' target/ci-external/trace-as-scenario.txt
# `shrink` on the user's algorithm, through the same binary: the unshrunk failure file shrinks
# again, and the result still fails as its `expect` says (`run` exits 0).
orig=$(ls target/ci-external/demo.lease-primary.no-step-down.seed*.json | grep -v shrunk | head -1)
target/debug/lease-sincro shrink "$orig" --out target/ci-external/reshrunk.json
target/debug/lease-sincro run target/ci-external/reshrunk.json
# `calibrate` on the user's planted bug: three campaigns per strategy, each finds it.
target/debug/lease-sincro calibrate -a demo.lease-primary --variant no-step-down --offsets 3 --seeds 100 --out target/ci-external/cal --quiet > target/ci-external-cal.txt
cat target/ci-external-cal.txt
grep -Eq '^mix .* 3 of 3 +3 of 3 ' target/ci-external-cal.txt
# The views of the user's failure (text, Mermaid, HTML) name and draw its violation; `matrix`
# holds inside the user's declared fault model (exit 0; pauses and clock jumps, outside it,
# break a lease); `explore` searches the user's algorithm within its bounds (exit 0: nothing
# found in 5 s).
for format in text mermaid html; do
  target/debug/lease-sincro show "$shrunk" --format "$format" --out "target/ci-external/view.$format"
  grep -q at_most_one_primary "target/ci-external/view.$format"
done
grep -q 'VIOLATION' target/ci-external/view.text
target/debug/lease-sincro matrix -a demo.lease-primary --seeds 10 --out target/ci-external/matrix --quiet
target/debug/lease-sincro explore -a demo.lease-primary --time 5s --out target/ci-external/explore

step "feature arbitrary: every fuzzer input gives a valid scenario"
cargo test -p sincro-harness --features arbitrary --lib arbitrary::

step "determinism sweep: every seed run twice, traces compared byte for byte, on both engines (failures of buggy variants are expected; not shrunk here)"
cargo run --release --quiet -- fuzz --algorithm all --seeds 300 --jobs 2 --check-determinism --keep-going --no-shrink --out target/ci-failures/determinism-native
# clock.* runs last hundreds of simulated seconds (slewing at 500 ppm): on turmoil's 1 ms ticks
# that is ~16 s a run, so they get one seed there and the rest get 30 (50 took 280 s of CI's
# 24 minutes at stop 66; the native sweep above runs 300 of every target). Turmoil's cost grows with
# simulated time, so its sweep keeps every active phase at 1 s (--fixed-phase): the native
# sweep above covers the phase swarm (¼ to 4 s), and the phase does not touch determinism.
# omega.* runs on its own shared-memory model, on no engine: it refuses turmoil.
# Each sweep and campaign writes to a folder of its own: into one, a seed's file of one
# replaced another's (fuzz says so since stop 63), and the first one's failures were lost.
cargo run --release --quiet -- fuzz --algorithm 'all,!clock.*,!omega.*' --seeds 30 --jobs 2 --engine turmoil --fixed-phase --check-determinism --keep-going --no-shrink --out target/ci-failures/determinism-turmoil
cargo run --release --quiet -- fuzz --algorithm 'clock.*' --seeds 1 --jobs 2 --engine turmoil --fixed-phase --check-determinism --keep-going --no-shrink --out target/ci-failures/determinism-turmoil

step "fuzz campaign: correct variants must pass, buggy variants must be caught"
cargo run --release --quiet -- fuzz --algorithm all --seeds 2000 --jobs 2 --out target/ci-failures/campaign --junit target/ci-fuzz.xml

step "fault-tolerance matrix: inside each declared fault model every property holds"
cargo run --release --quiet -- matrix --seeds 30 --jobs 2 --out target/ci-failures/matrix

step "explore: the sleep-set reduction changes no verdict (every variant, seeds 0 and 1, with and without it)"
cargo build --release --quiet
bash ci/explore-reduction.sh target/release/sincro 0 1

step "failure views: the HTML of a short and two long failures, screenshot in headless Chromium (installed as root when missing), the violation drawn on the first 1400x900 screen"
bash ci/screenshot.sh

step "bad input exits 2 with a message"
set +e
echo '{"algorithm": "mutex.centralized", "nodes": 0}' > target/ci-bad.json
cargo run --release --quiet -- run target/ci-bad.json 2> target/ci-bad.err
code=$?
set -e
cat target/ci-bad.err
if [ "$code" -ne 2 ]; then echo "expected exit code 2, got $code"; exit 1; fi

step "madsim engine: without --cfg madsim, selecting it is bad input (exit 2) with the way to get it"
set +e
cargo run --release --quiet -- run corpus/mutex/centralized-pass.json --engine madsim 2> target/ci-madsim.err
code=$?
set -e
cat target/ci-madsim.err
if [ "$code" -ne 2 ] || ! grep -q -- '--cfg madsim' target/ci-madsim.err; then
  echo "expected exit code 2 naming --cfg madsim, got $code"; exit 1
fi

step "madsim engine (RUSTFLAGS=--cfg madsim, target/madsim): clippy, its tests, and every corpus scenario agrees on native, turmoil and madsim"
RUSTFLAGS="--cfg madsim" cargo clippy --target-dir target/madsim -p sincro-harness --all-targets -- -D warnings
RUSTFLAGS="--cfg madsim" cargo test --target-dir target/madsim -p sincro-harness --lib engine::madsim
RUSTFLAGS="--cfg madsim" cargo test --target-dir target/madsim -p sincro --test it engines:: -- --nocapture

step "packaging: each crate packages only its sources, the README and the licenses, and builds from its package (cargo publish --dry-run); the fuzz crate checks against its committed Cargo.lock"
# The dry-run verifies each crate against the others' packages, served from a local registry, and
# cargo treats registry crates as immutable: it neither unpacks a changed package again nor
# rebuilds one it built before. A cargo home or target directory kept between runs would verify
# against stale sources, so remove what an earlier dry-run unpacked and built (our crates only).
rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/sincro-*-0.1.0 target/package \
  target/debug/.fingerprint/sincro-* target/debug/deps/libsincro_* target/debug/deps/sincro_*
cargo publish --workspace --dry-run --allow-dirty --config ci/package-profile.toml
cargo check --locked --manifest-path fuzz/Cargo.toml --target-dir target/fuzz-check

echo; echo "(the step above took $((SECONDS - step_start)) s)"; echo "CI passed in $((SECONDS - ci_start)) s"
