#!/usr/bin/env bash
# What CI runs: formatting, lints, the test suite (the README's test command), a determinism
# sweep and a short fuzz campaign over every registered algorithm.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
export INSTA_UPDATE=no   # a changed snapshot fails CI; accept it locally with `cargo insta review`

step() { echo; echo "=== $* ==="; }

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (deny warnings)"
cargo clippy --workspace --all-targets -- -D warnings

step "tests (README: cargo test --workspace)"
cargo test --workspace

step "feature arbitrary: every fuzzer input gives a valid scenario"
cargo test -p sincro-harness --features arbitrary --lib arbitrary::

step "determinism sweep: every seed run twice, traces compared byte for byte, on both engines (failures of buggy variants are expected; not shrunk here)"
cargo run --release --quiet -- fuzz --algorithm all --seeds 300 --jobs 2 --check-determinism --keep-going --no-shrink --out target/ci-failures
# clock.* runs last hundreds of simulated seconds (slewing at 500 ppm): on turmoil's 1 ms ticks
# that is ~16 s a run, so they get one seed there and the rest get 50.
cargo run --release --quiet -- fuzz --algorithm 'all,!clock.*' --seeds 50 --jobs 2 --engine turmoil --check-determinism --keep-going --no-shrink --out target/ci-failures
cargo run --release --quiet -- fuzz --algorithm 'clock.*' --seeds 1 --jobs 2 --engine turmoil --check-determinism --keep-going --no-shrink --out target/ci-failures

step "fuzz campaign: correct variants must pass, buggy variants must be caught"
cargo run --release --quiet -- fuzz --algorithm all --seeds 2000 --jobs 2 --out target/ci-failures --junit target/ci-fuzz.xml

step "fault-tolerance matrix: inside each declared fault model every property holds"
cargo run --release --quiet -- matrix --seeds 30 --jobs 2 --out target/ci-failures/matrix

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
RUSTFLAGS="--cfg madsim" cargo test --target-dir target/madsim -p sincro --test engines -- --nocapture

echo; echo "CI passed"
