//! The `sincro` command (see `sincro --help`): the command line of [`sincro::cli`] over the
//! built-in algorithms.

/// mimalloc (feature `fast-alloc`, on by default): runs allocate and free events, texts and
/// scenarios by the million, and it takes about half the instructions of glibc's malloc for
/// them (README, "Measured"). Nothing a run computes depends on the allocator.
#[cfg(feature = "fast-alloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    sincro::cli::main()
}
