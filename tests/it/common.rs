//! What the tests share: finding the corpus's scenarios, running the binary by its name.

use std::path::{Path, PathBuf};

/// Every `*.json` under `corpus/`, recursively, in sorted order.
pub fn corpus_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .expect("corpus dir")
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "json") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus"),
        &mut files,
    );
    files
}

/// `PATH` with the folder of the `sincro` binary under test first, so that it is started by
/// its name, as an installed one is.
pub fn path_with_sincro() -> std::ffi::OsString {
    let bin = Path::new(env!("CARGO_BIN_EXE_sincro"))
        .parent()
        .expect("the binary is in a folder")
        .to_path_buf();
    let rest = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(&rest)))
        .expect("the target folder can be on PATH")
}

/// Whether this run sweeps in full: a release build, or `SINCRO_FULL_SWEEPS=1` (CI's test
/// step sets it). A quick debug run of `cargo test` takes fewer seeds in the costly sweeps,
/// as the algorithms' own tests do (`sweep_seeds`).
pub fn full_sweeps() -> bool {
    !cfg!(debug_assertions) || std::env::var("SINCRO_FULL_SWEEPS").is_ok_and(|v| v.trim() == "1")
}

/// `full` seeds in a [full sweep](full_sweeps), else `quick`.
pub fn sweep(full: u64, quick: u64) -> u64 {
    if full_sweeps() {
        full
    } else {
        quick.min(full)
    }
}
