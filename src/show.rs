//! `sincro show`, `sincro check` and `sincro diff`: reading traces.
//!
//! (Stub: the Mermaid and HTML renderers, offline checking and trace diff land next.)

use std::path::PathBuf;

/// Options of `sincro show`.
#[derive(clap::Args, Clone, Debug)]
pub struct ShowArgs {
    /// A scenario JSON file (run, then rendered) or a trace JSON Lines file.
    pub input: PathBuf,
}

/// Options of `sincro check`.
#[derive(clap::Args, Clone, Debug)]
pub struct CheckArgs {
    /// A trace JSON Lines file recorded by Sincro or elsewhere.
    pub trace: PathBuf,
}

/// Options of `sincro diff`.
#[derive(clap::Args, Clone, Debug)]
pub struct DiffArgs {
    /// First trace (JSON Lines).
    pub a: PathBuf,
    /// Second trace (JSON Lines).
    pub b: PathBuf,
}

/// Runs `sincro show`; returns the exit code.
pub fn show(_args: &ShowArgs) -> i32 {
    eprintln!("error: `sincro show` is not available yet");
    crate::exit::BAD_INPUT
}

/// Runs `sincro check`; returns the exit code.
pub fn check(_args: &CheckArgs) -> i32 {
    eprintln!("error: `sincro check` is not available yet");
    crate::exit::BAD_INPUT
}

/// Runs `sincro diff`; returns the exit code.
pub fn diff(_args: &DiffArgs) -> i32 {
    eprintln!("error: `sincro diff` is not available yet");
    crate::exit::BAD_INPUT
}
